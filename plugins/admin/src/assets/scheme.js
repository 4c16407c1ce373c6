// The colour scheme the reader chose (light or dark), remembered in a cookie under the
// admin's path; without one the system's preference applies. Loaded before the page is
// painted, so it never flashes the other scheme; the toggle itself is in admin.js.
/* global document */
'use strict';
(() => {
  const chosen = /(?:^|;\s*)cs_admin_scheme=(light|dark)(?:;|$)/.exec(document.cookie);
  if (chosen) document.documentElement.dataset.scheme = chosen[1];
})();
