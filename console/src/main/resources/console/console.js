// Baton console: follows a job's log into <pre id="log"> from the API's own log stream (Server-Sent
// Events; the browser reconnects by itself and resumes after the last entry it got, by Last-Event-ID).
// Entries are added as text, never as HTML. Everything else live on the pages is htmx's SSE extension;
// this script makes it come back to the truth whenever its stream (re)opens (see below).
(function () {
  'use strict';

  function follow(pre) {
    var state = document.getElementById('log-state');
    var source = new EventSource(pre.dataset.follow);
    source.onopen = function () { state.textContent = 'Following the log.'; };
    source.onerror = function () {
      if (source.readyState !== EventSource.CLOSED) state.textContent = 'Log stream interrupted; reconnecting…';
    };
    source.addEventListener('log', function (e) {
      var entry = JSON.parse(e.data);
      var span = document.createElement('span');
      span.className = 'log-' + String(entry.stream || 'stdout').toLowerCase();
      span.textContent = entry.dropped ? '[' + entry.dropped + ' bytes not kept]\n' : entry.text;
      var atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
      pre.appendChild(span);
      if (atBottom) pre.scrollTop = pre.scrollHeight;
    });
    source.addEventListener('end', function (e) {
      source.close();
      state.textContent = 'Log complete: the job is ' + JSON.parse(e.data).status + '.';
    });
    return source;
  }

  // An event names what changed while the stream was open; a change made before it opened (while
  // the page loaded) or while it was away (cut, server restart) has no event. So each time the
  // page's event stream opens, first or again, its live parts fetch themselves once: the server
  // subscribes a stream to changes before it answers, so that fetch plus the events after it miss
  // nothing. Registered now, before htmx opens any stream.
  document.addEventListener('htmx:sseOpen', function (e) {
    e.target.querySelectorAll('[data-resync]').forEach(function (part) {
      htmx.trigger(part, 'resync');
    });
  });

  var logSource = null;

  document.addEventListener('DOMContentLoaded', function () {
    var pre = document.getElementById('log');
    if (pre && pre.dataset.follow) logSource = follow(pre);
  });

  // A page left for another keeps its streams open while the browser caches it for "back", and a
  // browser allows only a few connections per server: close them when the page is hidden, and
  // load the page afresh if it comes back from that cache.
  window.addEventListener('pagehide', function () {
    if (logSource) logSource.close();
    document.querySelectorAll('[sse-connect]').forEach(function (e) {
      var data = e['htmx-internal-data'];
      if (data && data.sseEventSource) data.sseEventSource.close();
    });
  });
  window.addEventListener('pageshow', function (e) {
    if (e.persisted) window.location.reload();
  });
})();
