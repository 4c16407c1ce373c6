// Bulk delete: the ids of the checked rows go as JSON to the list's bulk-delete URL with
// the session's CSRF token (the one htmx sends from <body hx-headers>); the refreshed list
// replaces the old one. A script file of its own, so the page needs no inline script.
/* global document, window, Element */
'use strict';
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button.bulk-delete') : null;
  if (!button) return;
  const list = button.closest('#list-content');
  const ids = [...list.querySelectorAll('input.select-row:checked')].map((box) => box.value);
  if (ids.length === 0 || !window.confirm(`Delete ${ids.length} row(s)?`)) return;
  const headers = JSON.parse(document.body.getAttribute('hx-headers') || '{}');
  const response = await fetch(list.dataset.bulkUrl, {
    method: 'DELETE',
    credentials: 'same-origin',
    headers: { ...headers, 'Content-Type': 'application/json', Accept: 'text/html' },
    body: JSON.stringify({ ids }),
  });
  if (response.status === 401) {
    window.location.assign(
      response.headers.get('HX-Redirect') || `${window.location.pathname.split('/').slice(0, -2).join('/')}/login`,
    );
    return;
  }
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    window.alert(typeof body.detail === 'string' ? body.detail : `Delete failed (${response.status})`);
    return;
  }
  const holder = document.createElement('div');
  holder.innerHTML = await response.text();
  const fresh = holder.firstElementChild;
  list.replaceWith(fresh);
  if (window.htmx) window.htmx.process(fresh);
});

// The scheme toggle: light, dark, or the system's again; kept a year in a cookie on the
// admin's path (a preference, nothing secret), read by scheme.js on every page.
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button.scheme-toggle') : null;
  if (!button) return;
  const root = document.documentElement;
  const dark =
    root.dataset.scheme === 'dark' ||
    (root.dataset.scheme !== 'light' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  const next = dark ? 'light' : 'dark';
  root.dataset.scheme = next;
  document.cookie = `cs_admin_scheme=${next}; Path=${button.dataset.path}; Max-Age=31536000; SameSite=Strict`;
  button.setAttribute('aria-pressed', String(next === 'dark'));
});

for (const button of document.querySelectorAll('button.scheme-toggle')) {
  const root = document.documentElement;
  const dark =
    root.dataset.scheme === 'dark' ||
    (root.dataset.scheme !== 'light' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  button.setAttribute('aria-pressed', String(dark));
}

// Date-times in the reader's own locale and time zone; the exact instant stays on hover.
function localTimes(root) {
  for (const time of root.querySelectorAll('time[datetime*="T"]')) {
    const date = new Date(time.getAttribute('datetime'));
    if (!Number.isNaN(date.getTime()))
      time.textContent = date.toLocaleString(document.documentElement.lang || undefined, {
        dateStyle: 'medium',
        timeStyle: 'short',
      });
  }
}
localTimes(document);
document.addEventListener('htmx:afterSettle', (event) => localTimes(event.target));

// A foreign key's search box: as the admin types, the lookup route's rows (at most 20)
// replace the select's options, keeping the chosen one and the empty choice.
let lookupTimer;
document.addEventListener('input', (event) => {
  const box = event.target instanceof Element ? event.target.closest('input.lookup') : null;
  if (!box) return;
  window.clearTimeout(lookupTimer);
  lookupTimer = window.setTimeout(async () => {
    const select = document.getElementById(box.getAttribute('aria-controls'));
    const response = await fetch(`${box.dataset.lookup}?q=${encodeURIComponent(box.value)}`, {
      credentials: 'same-origin',
      headers: { Accept: 'application/json' },
    });
    if (!response.ok || !select) return;
    const { options } = await response.json();
    const kept = [...select.options].filter((o) => o.selected || o.value === '');
    select.replaceChildren(
      ...kept,
      ...options.filter((o) => !kept.some((k) => k.value === o.value)).map((o) => new window.Option(o.label, o.value)),
    );
  }, 250);
});
