// Counts in words: "1 cell", "2 cells", "0 cells". One helper, so no page, check or CLI line says
// "1 active cells".

/** `n` and the noun, singular for exactly 1 (`plural(1, 'cell')` is "1 cell"; irregular plurals as the third argument). */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`;
}

/** "is" or "are" to agree with `n`. */
export const isAre = (n: number): string => (n === 1 ? 'is' : 'are');
