// Baton console: starts the job log viewer (log-viewer.js) on a job page. Everything else live on the
// pages is htmx's SSE extension; this script makes it come back to the truth whenever its stream
// (re)opens (see below).
(function () {
  'use strict';

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

  // The tab says the job's state: a swapped job page brings its new title along.
  document.addEventListener('htmx:afterSettle', function () {
    var titled = document.querySelector('[data-page-title]');
    if (titled && titled.dataset.pageTitle) document.title = titled.dataset.pageTitle;
  });

  var logSource = null;

  document.addEventListener('DOMContentLoaded', function () {
    var box = document.getElementById('log');
    if (box && box.dataset.follow && window.BatonLog) logSource = new window.BatonLog.Viewer(box).followStream(box.dataset.follow);
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
