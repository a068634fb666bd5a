// Baton console: what the log viewer (log-viewer.js) reads in a line's text (docs/console.md,
// "The log"): links, both OSC 8 hyperlinks and bare http(s) URLs, and the sections a job prints,
// GitHub Actions' ::group::NAME … ::endgroup:: and Buildkite's "--- NAME" (collapsed), "+++ NAME"
// (expanded) and "~~~ NAME" (collapsed) headings. Pure functions on strings; nothing here touches
// the page.
(function () {
  'use strict';

  var OSC8 = /\x1b\]8;[^;\x07\x1b]*;([^\x07\x1b]*)(?:\x07|\x1b\\)/g;
  var URL = /\bhttps?:\/\/[^\s<>"'`\x00-\x1f\x7f]+/g;
  var TRAILING = /[.,;:!?'"\]}>]+$/;

  // Only links a person can follow safely: never javascript: or data:.
  function safe(href) { return /^(https?:\/\/|mailto:)/i.test(href) ? href : null; }

  // The line cut at its OSC 8 links: [{text, href}], href null outside a link.
  function hyperlinks(raw) {
    var out = [];
    var at = 0;
    var href = null;
    var m;
    OSC8.lastIndex = 0;
    while ((m = OSC8.exec(raw)) !== null) {
      if (m.index > at) out.push({ text: raw.substring(at, m.index), href: href });
      href = m[1] ? safe(m[1]) : null;
      at = OSC8.lastIndex;
    }
    if (at < raw.length) out.push({ text: raw.substring(at), href: href });
    return out;
  }

  // A URL's end: trailing punctuation is the sentence's, and a ')' only belongs to it when it closes a '(' inside it.
  function trim(u) {
    for (;;) {
      var before = u;
      u = u.replace(TRAILING, '');
      if (u.charAt(u.length - 1) === ')' && (u.split('(').length - 1) < (u.split(')').length - 1)) u = u.substring(0, u.length - 1);
      if (u === before) return u;
    }
  }

  // Plain text cut at its bare http(s) URLs: [{text, href}].
  function urls(text) {
    var out = [];
    var at = 0;
    var m;
    URL.lastIndex = 0;
    while ((m = URL.exec(text)) !== null) {
      var u = trim(m[0]);
      if (u.length <= 'https://'.length) continue;
      if (m.index > at) out.push({ text: text.substring(at, m.index), href: null });
      out.push({ text: u, href: u });
      at = m.index + u.length;
      URL.lastIndex = at;
    }
    if (at < text.length) out.push({ text: text.substring(at), href: null });
    return out;
  }

  // A section heading ({name, collapsed, closes}) or null. A Buildkite heading also ends the
  // section before it; a GitHub group ends at ::endgroup::.
  function sectionStart(plain) {
    var m = /^::group::(.*)$/.exec(plain);
    if (m) return { name: m[1].trim() || 'Group', collapsed: true, github: true };
    m = /^(---|\+\+\+|~~~) (\S.*)$/.exec(plain);
    if (m) return { name: m[2].trim(), collapsed: m[1] !== '+++', github: false };
    return null;
  }

  function sectionEnd(plain) { return /^::endgroup::\s*$/.test(plain); }

  window.BatonLogLines = { hyperlinks: hyperlinks, urls: urls, sectionStart: sectionStart, sectionEnd: sectionEnd };
})();
