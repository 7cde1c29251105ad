// Live updates of the operator's fleet table (progressive enhancement: without this script a
// reload shows the same state). The page's #live-status names its stream; each `device-row`
// event carries a server-rendered row that replaces the phone's row by id, or joins the table;
// `fleet-summary` carries the count line above it.

const status = document.getElementById('live-status');
const url = status?.dataset.liveUrl;

function say(text) {
  if (status) status.textContent = text;
}

function rowOf(html) {
  const template = document.createElement('template');
  template.innerHTML = `<table><tbody>${html.trim()}</tbody></table>`;
  return template.content.querySelector('tr');
}

function connect() {
  const source = new EventSource(url);
  const body = document.getElementById('fleet');
  source.addEventListener('ready', () => say(status.dataset.liveText));
  source.addEventListener('device-row', (event) => {
    const update = JSON.parse(event.data);
    const row = rowOf(update.row);
    const existing = document.getElementById(row.id);
    if (existing) existing.replaceWith(row);
    else {
      body?.append(row);
      body?.closest('table')?.removeAttribute('hidden');
      document.getElementById('fleet-empty')?.setAttribute('hidden', '');
    }
  });
  source.addEventListener('device-removed', (event) => {
    document.getElementById(`device-${JSON.parse(event.data).id}`)?.remove();
  });
  source.addEventListener('fleet-summary', (event) => {
    const summary = document.getElementById('fleet-summary');
    if (summary) summary.textContent = JSON.parse(event.data).text;
  });
  source.addEventListener('signed-out', () => {
    source.close();
    say('You were signed out. Reload the page to sign in again.');
  });
  source.addEventListener('error', () => {
    say(source.readyState === EventSource.CLOSED ? 'Live updates stopped. Reload the page.' : 'Reconnecting…');
  });
}

if (status && url && 'EventSource' in window) connect();
