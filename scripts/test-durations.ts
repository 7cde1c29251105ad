// A test reporter for scripts/test.ts: the seconds each test file took (the sum of its top-level
// tests), as one JSON object written when the run ends. The next run balances its groups of
// files by these figures.
import type { TestEvent } from 'node:test/reporters';

export default async function* durations(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const seconds: Record<string, number> = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (nesting !== 0 || !file) continue;
    seconds[file] = (seconds[file] ?? 0) + details.duration_ms / 1000;
  }
  yield JSON.stringify(seconds);
}
