import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dataTable } from './data-table.ts';

const table = (rows: string[], live?: { tbodyId: string; emptyId: string; className?: string }) =>
  dataTable<string>({
    caption: 'Things',
    columns: [{ label: 'Name', value: (row) => row }],
    rows,
    empty: 'No things yet.',
    live,
  }).toString();

describe('dataTable', () => {
  it('shows only the empty text when there are no rows', () => {
    assert.equal(table([]), '<p>No things yet.</p>');
  });

  it('draws a live table and its empty text both, the one that does not apply hidden', () => {
    const live = { tbodyId: 'things', emptyId: 'things-empty', className: 'things-table' };
    const none = table([], live);
    assert.match(none, /^<p id="things-empty">No things yet\.<\/p>\n<table class="things-table" hidden>/);
    assert.match(none, /<tbody id="things">\n\n<\/tbody>/);
    const some = table(['One'], live);
    assert.match(some, /^<p id="things-empty" hidden>No things yet\.<\/p>\n<table class="things-table">/);
    assert.match(some, /<tbody id="things">\n<tr>\n<th scope="row">One<\/th>\n<\/tr>\n<\/tbody>/);
  });

  it('keeps a table without `live` as it was: no ids, no hidden parts', () => {
    assert.match(table(['One']), /^<table>\n<caption>Things<\/caption>\n<thead>.*<\/thead>\n<tbody>\n<tr>/s);
  });
});
