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

  // Times: the server writes the exact time; the page shows it relative ("3 min ago") with the
  // exact time on hover, and counts a running job's elapsed time (data-elapsed-since) every
  // second, in the same duration format as the server's (Format.duration).
  function duration(ms) {
    if (ms < 0) ms = 0;
    if (ms < 1000) return Math.round(ms) + ' ms';
    var s = Math.floor(ms / 1000);
    if (s < 60) return (Math.floor(ms / 100) / 10).toFixed(1) + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    return Math.floor(s / 3600) + ' h ' + Math.floor(s % 3600 / 60) + ' min';
  }

  // "3 min ago", or "in 3 min" for a time to come (a predicted start).
  function ago(ms) {
    var future = ms < -999;
    var s = Math.floor(Math.abs(ms) / 1000);
    var span = s < 60 ? s + ' s' : s < 3600 ? Math.floor(s / 60) + ' min' : s < 86400 ? Math.floor(s / 3600) + ' h' : Math.floor(s / 86400) + ' d';
    return future ? 'in ' + span : span + ' ago';
  }

  // The server's clock, not the browser's: the page carries the time it was rendered at.
  var skew = 0;
  document.addEventListener('DOMContentLoaded', function () {
    var server = Date.parse(document.body.dataset.now || '');
    if (!isNaN(server)) skew = server - Date.now();
  });

  function liveTimes() {
    var now = Date.now() + skew;
    document.querySelectorAll('time[data-relative]').forEach(function (t) {
      var at = Date.parse(t.getAttribute('datetime'));
      if (!isNaN(at)) t.textContent = ago(now - at);
    });
    document.querySelectorAll('[data-elapsed-since]').forEach(function (e) {
      var since = Date.parse(e.dataset.elapsedSince);
      if (!isNaN(since)) e.textContent = duration(now - since);
    });
  }

  document.addEventListener('htmx:afterSettle', liveTimes);
  document.addEventListener('DOMContentLoaded', function () {
    liveTimes();
    setInterval(liveTimes, 1000);
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
