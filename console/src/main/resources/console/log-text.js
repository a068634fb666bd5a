// Baton console: a log line's text as the page shows it (log-viewer.js draws the rows; docs/console.md,
// "The log"): OSC 8 hyperlinks and bare URLs as links (log-lines.js finds them), ANSI styles as
// classes by anser, the search term marked, and the time since the job started. Text is set as
// text nodes, never as HTML, and control sequences that are not styles are removed.
(function () {
  'use strict';

  var OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g;
  var LEFTOVER = /\x1b[()#][0-9A-Za-z]|\x1b[0-9A-Za-z=<>]|\x1b\[[0-9;?]*[ -\/]*[@-~]?|[\x00-\x08\x0a-\x1f\x7f]/g;

  /** 83,456 ms as +1:23.456 (and +1:02:03.456 past an hour). */
  function elapsed(ms) {
    if (ms < 0) ms = 0;
    var s = Math.floor(ms / 1000);
    var frac = String(Math.floor(ms % 1000)).padStart(3, '0');
    var h = Math.floor(s / 3600);
    var m = Math.floor(s / 60) % 60;
    var sec = String(s % 60).padStart(2, '0');
    return '+' + (h ? h + ':' + String(m).padStart(2, '0') : m) + ':' + sec + '.' + frac;
  }

  // The line's text as spans: OSC 8 hyperlinks and bare URLs become links (log-lines.js); anser
  // turns SGR escapes into classes; what anser leaves (cursor moves, titles, stray control
  // characters) is removed, never shown raw.
  function styled(raw, into, query) {
    var t = raw.replace(/\r+$/, '');
    var cr = t.lastIndexOf('\r'); // a progress bar redrawn with \r: its last state
    if (cr >= 0) t = t.substring(cr + 1);
    var parts = t.indexOf('\x1b]8;') < 0 ? [{ text: t, href: null }] : window.BatonLogLines.hyperlinks(t);
    for (var p = 0; p < parts.length; p++) {
      var target = into;
      if (parts[p].href) {
        target = link(parts[p].href);
        into.appendChild(target);
      }
      styledPart(parts[p].text, target, !!parts[p].href, query);
    }
  }

  function link(href) {
    var a = document.createElement('a');
    a.className = 'log-link';
    a.href = href;
    a.target = '_blank';
    a.rel = 'noopener noreferrer nofollow';
    return a;
  }

  function styledPart(t, into, linked, query) {
    if (t.indexOf('\x1b') < 0 && !/[\x00-\x08\x0b-\x1f\x7f]/.test(t)) {
      appendText(into, t, linked, query);
      return;
    }
    var fragments = window.Anser.ansiToJson(t.replace(OSC, ''), { use_classes: true, remove_empty: true });
    for (var i = 0; i < fragments.length; i++) {
      var f = fragments[i];
      var content = f.content.replace(LEFTOVER, '');
      if (!content) continue;
      var classes = [];
      if (f.fg) classes.push(f.fg + '-fg');
      if (f.bg) classes.push(f.bg + '-bg');
      (f.decorations || []).forEach(function (d) { classes.push('ansi-' + d); });
      if (!classes.length) {
        appendText(into, content, linked, query);
        continue;
      }
      var span = document.createElement('span');
      span.className = classes.join(' ');
      // Colours outside the 16 named ones are set through the CSS object model, which the CSP allows.
      if (f.fg && f.fg !== 'ansi-truecolor' && f.fg.indexOf('ansi-palette-') === 0) span.style.color = palette(Number(f.fg.substring(13)));
      else if (f.fg === 'ansi-truecolor' && f.fg_truecolor) span.style.color = 'rgb(' + f.fg_truecolor + ')';
      if (f.bg && f.bg.indexOf('ansi-palette-') === 0) span.style.backgroundColor = palette(Number(f.bg.substring(13)));
      else if (f.bg === 'ansi-truecolor' && f.bg_truecolor) span.style.backgroundColor = 'rgb(' + f.bg_truecolor + ')';
      appendText(span, content, linked, query);
      into.appendChild(span);
    }
  }

  // Text, its bare URLs as links (unless it is a link already), with the search term marked.
  function appendText(into, text, linked, query) {
    if (!linked && text.indexOf('http') >= 0) {
      var parts = window.BatonLogLines.urls(text);
      for (var p = 0; p < parts.length; p++) {
        if (!parts[p].href) {
          marked(into, parts[p].text, query);
          continue;
        }
        var a = link(parts[p].href);
        marked(a, parts[p].text, query);
        into.appendChild(a);
      }
      return;
    }
    marked(into, text, query);
  }

  function marked(into, text, query) {
    var q = query;
    if (!q) {
      into.appendChild(document.createTextNode(text));
      return;
    }
    var lower = text.toLowerCase();
    var at = 0;
    var hit;
    while ((hit = lower.indexOf(q, at)) >= 0) {
      if (hit > at) into.appendChild(document.createTextNode(text.substring(at, hit)));
      var mark = document.createElement('mark');
      mark.textContent = text.substring(hit, hit + q.length);
      into.appendChild(mark);
      at = hit + q.length;
    }
    if (at < text.length) into.appendChild(document.createTextNode(text.substring(at)));
  }

  // xterm's 256 colours: 16 named, a 6×6×6 cube, 24 greys.
  function palette(n) {
    var named = ['0,0,0', '205,49,49', '13,188,121', '229,229,16', '36,114,200', '188,63,188', '17,168,205', '229,229,229',
      '102,102,102', '241,76,76', '35,209,139', '245,245,67', '59,142,234', '214,112,214', '41,184,219', '255,255,255'];
    if (n < 16) return 'rgb(' + named[n] + ')';
    if (n < 232) {
      var c = n - 16;
      var level = function (v) { return v === 0 ? 0 : 55 + v * 40; };
      return 'rgb(' + level(Math.floor(c / 36)) + ',' + level(Math.floor(c / 6) % 6) + ',' + level(c % 6) + ')';
    }
    var grey = 8 + (n - 232) * 10;
    return 'rgb(' + grey + ',' + grey + ',' + grey + ')';
  }


  window.BatonLogText = { styled: styled, elapsed: elapsed };
})();
