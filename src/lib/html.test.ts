// @database-independent
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { html, Html, join, raw } from './html.ts';

describe('html', () => {
  it('escapes & < > " and \' in every interpolated string', () => {
    const text = `Tom & Jerry's <b>"best"</b>`;
    assert.equal(
      String(html`<p title="${text}">${text}</p>`),
      '<p title="Tom &#38; Jerry&#39;s &#60;b&#62;&#34;best&#34;&#60;/b&#62;">Tom &#38; Jerry&#39;s &#60;b&#62;&#34;best&#34;&#60;/b&#62;</p>',
    );
  });

  it('keeps the template text and nested html as they are, escaping only the values inside', () => {
    const name = '<script>alert(1)</script>';
    const item = html`<li>${name}</li>`;
    assert.ok(item instanceof Html);
    assert.equal(String(html`<ul>${item}</ul>`), '<ul><li>&#60;script&#62;alert(1)&#60;/script&#62;</li></ul>');
  });

  it('flattens arrays, nested ones too, without a separator', () => {
    const rows = ['a', 'b<'].map((cell) => html`<td>${cell}</td>`);
    assert.equal(String(html`<tr>${rows}${[['<'], [html`<br>`]]}</tr>`), '<tr><td>a</td><td>b&#60;</td>&#60;<br></tr>');
  });

  it('renders nothing for null, undefined and false, and numbers as written', () => {
    const error: string | undefined = undefined;
    assert.equal(String(html`<p>${null}${undefined}${false}${error && html`<em>${error}</em>`}</p>`), '<p></p>');
    assert.equal(
      String(html`<progress max="${10}" value="${0}">${2.5}</progress>`),
      '<progress max="10" value="0">2.5</progress>',
    );
  });

  it('trusts raw() only, and a plain string never', () => {
    const svg = '<svg><rect width="1"></rect></svg>';
    assert.equal(String(html`<div>${raw(svg)}</div>`), `<div>${svg}</div>`);
    assert.equal(
      String(html`<div>${svg}</div>`),
      '<div>&#60;svg&#62;&#60;rect width=&#34;1&#34;&#62;&#60;/rect&#62;&#60;/svg&#62;</div>',
    );
  });

  it('joins items with a separator, escaping the separator unless it is html', () => {
    const items = [html`<a>1</a>`, 'x&y'];
    assert.equal(String(join(items, '\n')), '<a>1</a>\nx&#38;y');
    assert.equal(String(join(items, html`<br>`)), '<a>1</a><br>x&#38;y');
    assert.equal(String(join(items, ' & ')), '<a>1</a> &#38; x&#38;y');
    assert.equal(String(join([], '\n')), '');
  });

  it('gives its markup to JSON.stringify and to plain template literals', () => {
    const value = html`<b>${'<'}</b>`;
    assert.equal(JSON.stringify({ value }), '{"value":"<b>&#60;</b>"}');
    assert.equal(`${value}`, '<b>&#60;</b>');
  });
});
