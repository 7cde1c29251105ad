// Live updates of the Cells pages (progressive enhancement: without this script a reload shows
// the same state). The page's #live-status names its stream; each event carries server-rendered
// pieces of the page (a message, a conversation row, the cell's state) that replace or join
// their place by id. Message ids sort by creation time, so order is kept without dates.

const status = document.getElementById('live-status');
const url = status?.dataset.liveUrl;

/** The one element of a server-rendered piece. */
function element(html) {
  const template = document.createElement('template');
  template.innerHTML = html.trim();
  return template.content.firstElementChild;
}

function say(text) {
  if (status) status.textContent = text;
}

/** A thread shows the message in id order; a newer version replaces an older one. */
function updateThread(thread, update) {
  if (thread.dataset.participant !== update.participant) return;
  const node = element(update.thread);
  const existing = document.getElementById(node.id);
  if (existing) {
    if ((existing.dataset.updated ?? '') <= update.updated_at) existing.replaceWith(node);
    return;
  }
  const items = [...thread.children];
  // Older than the page's first message: it belongs to an earlier page.
  if (items.length > 0 && node.id < items[0].id) return;
  const next = items.find((item) => item.id > node.id);
  thread.insertBefore(node, next ?? null);
  document.getElementById('thread-empty')?.setAttribute('hidden', '');
}

/** The conversation row shows its latest message; a new message moves it to the top. */
function updateConversations(list, update) {
  const node = element(update.conversation);
  const existing = document.getElementById(node.id);
  const shown = existing?.dataset.last ?? '';
  if (shown > update.id) return;
  if (existing && shown === update.id) {
    existing.replaceWith(node);
    return;
  }
  existing?.remove();
  list.prepend(node);
  document.getElementById('conversations-empty')?.setAttribute('hidden', '');
  if (update.announce) say(`Live. ${update.announce}`);
}

/** The cells list: a changed cell's row is replaced; a new cell's row joins at the top. */
function updateCells(list, update) {
  const node = element(update.row);
  const existing = document.getElementById(node.id);
  if (existing) {
    existing.replaceWith(node);
    return;
  }
  list.prepend(node);
  list.closest('table')?.removeAttribute('hidden');
  document.getElementById('cells-empty')?.setAttribute('hidden', '');
}

/** Too much happened while away to replay: take the current page's pieces as they are now. */
async function resync() {
  const response = await fetch(location.href, { headers: { accept: 'text/html' }, credentials: 'same-origin' });
  if (!response.ok) return;
  const fresh = new DOMParser().parseFromString(await response.text(), 'text/html');
  const parts = [...document.querySelectorAll('[data-live-part]')].map((part) => part.id);
  for (const id of ['cell-state', 'thread', 'conversations', 'cells', ...parts]) {
    const current = document.getElementById(id);
    const next = fresh.getElementById(id);
    if (current && next) current.replaceChildren(...next.childNodes);
  }
}

function connect() {
  const source = new EventSource(url);
  source.addEventListener('ready', () => say(status.dataset.liveText));
  source.addEventListener('message-update', (event) => {
    const update = JSON.parse(event.data);
    const thread = document.getElementById('thread');
    const list = document.getElementById('conversations');
    if (thread) updateThread(thread, update);
    if (list) updateConversations(list, update);
  });
  source.addEventListener('cell-update', (event) => {
    document.getElementById('cell-state')?.replaceWith(element(JSON.parse(event.data).state));
  });
  source.addEventListener('cell-row', (event) => {
    const list = document.getElementById('cells');
    if (list) updateCells(list, JSON.parse(event.data));
  });
  source.addEventListener('resync', () => void resync());
  // The Codes and job pages: something they show changed; their parts are read again as the page renders them.
  source.addEventListener('refresh', (event) => {
    void resync().then(() => say(`Live. ${JSON.parse(event.data).announce}`));
  });
  source.addEventListener('signed-out', () => {
    source.close();
    say('You were signed out. Reload the page to sign in again.');
  });
  source.addEventListener('error', () => {
    // EventSource retries by itself; CLOSED means it gave up (signed out, or the cell is gone).
    say(
      source.readyState === EventSource.CLOSED
        ? 'Live updates stopped. Reload the page to see new messages.'
        : 'Reconnecting…',
    );
  });
}

if (status && url && 'EventSource' in window) connect();

// One send per click: the button waits for the page that answers (enabled again when the page
// comes back from the browser's cache).
for (const form of document.querySelectorAll('form.send-form')) {
  form.addEventListener('submit', () => form.querySelector('button[type="submit"]')?.setAttribute('disabled', ''));
}
window.addEventListener('pageshow', () => {
  for (const button of document.querySelectorAll('form.send-form button[disabled]')) button.removeAttribute('disabled');
});
