// @database-independent
// Pages escape by construction: every page's markup is an `html` template, so a value cannot
// reach a page unescaped. This guard reads the source of the console and of the other
// server-rendered pages and fails on the two ways back: a hand-called escape(), and markup in a
// plain string or untagged template literal (whose interpolations nothing escapes).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const ROOTS = [
  'src/modules/console',
  'src/modules/billing/checkout-pages.ts',
  'src/modules/oauth/pages.ts',
  'src/modules/docs/pages.ts',
];

/** An HTML or SVG element's opening or closing tag (`<credential>` in prose is not one). */
const TAG =
  /<\/?(a|br|button|caption|circle|code|dd|desc|details|div|dl|dt|em|fieldset|figcaption|figure|form|h[1-6]|head|header|html|img|input|label|legend|li|line|link|main|meta|nav|ol|option|output|p|path|polyline|pre|progress|rect|script|section|select|small|span|strong|summary|svg|table|tbody|td|text|textarea|th|thead|time|title|tr|ul)[\s>/]/;

function sourceFiles(path: string): string[] {
  if (path.endsWith('.ts')) return [path];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => join(path, name));
}

function offences(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'escape')
      at(node, 'escape() called by hand');
    // Handed over to be called (`.map(escape)`): the global one is even a URL encoder.
    if (ts.isCallExpression(node) && node.arguments.some((arg) => ts.isIdentifier(arg) && arg.text === 'escape'))
      at(node, 'escape passed to be called');
    const tagged = node.parent !== undefined && ts.isTaggedTemplateExpression(node.parent);
    if (ts.isTemplateExpression(node) && !tagged) {
      const parts = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join('');
      if (TAG.test(parts)) at(node, 'markup in an untagged template literal');
    }
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && !tagged && TAG.test(node.text))
      at(node, 'markup in a plain string');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('pages escape by construction', () => {
  it('no console, checkout, OAuth or docs page escapes by hand or builds markup outside html`…`', () => {
    const files = ROOTS.flatMap(sourceFiles);
    assert.ok(files.length > 40, `the guard reads the console's files (${files.length})`);
    assert.deepEqual(
      files.flatMap((file) => offences(file)),
      [],
    );
  });

  it('catches both ways back, and lets html`…` and prose with angle brackets pass (the guard can fail)', () => {
    const probe = [
      'const a = `<p>${name}</p>`;',
      "const b = '<span>x</span>';",
      'const c = escape(name);',
      'const d = html`<p>${name}</p>`;',
      "const e = 'Authorization: Payment <credential>';",
      'const f = names.map(escape);',
    ].join('\n');
    assert.deepEqual(offences('probe.ts', probe), [
      'probe.ts:1: markup in an untagged template literal',
      'probe.ts:2: markup in a plain string',
      'probe.ts:3: escape() called by hand',
      'probe.ts:6: escape passed to be called',
    ]);
  });
});
