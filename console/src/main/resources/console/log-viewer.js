// Baton console: the job log viewer (docs/console.md, "The log").
//
// The log arrives from the API's own log stream (Server-Sent Events, resumed by Last-Event-ID)
// and is kept as lines in memory; only the rows in view are in the page (a virtual list with fixed
// row height), so a log of tens of megabytes opens and scrolls without freezing. Each row: its
// line number, a link (#L120, a range #L10-L20) that opens the page there, and its text as
// log-text.js draws it (links, ANSI styles by anser); on demand, the time (UTC) the line's chunk
// reached the server and the time since the job started. Sections the job prints (log-lines.js)
// fold; Wrap wraps long lines. Styles end with their line.
(function () {
  'use strict';

  var ROW = 20;            // px, the row height in console.css (.log-row)
  var MAX_PX = 8000000;    // a scroll height browsers handle; taller logs scroll proportionally
  var OVERSCAN = 10;       // rows rendered above and below the view
  var MAX_MATCHES = 100000;
  var WRAP_ALL = 3000;     // wrapped, a log of at most this many rows is all in the page

  // Everything after anser that could still move a cursor or hide text: OSC strings (links,
  // titles), two-character escapes, and any control character but tab.
  var OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g;
  var LEFTOVER = /\x1b[()#][0-9A-Za-z]|\x1b[0-9A-Za-z=<>]|\x1b\[[0-9;?]*[ -\/]*[@-~]?|[\x00-\x08\x0a-\x1f\x7f]/g;
  var SGR_ALL = /\x1b\[[0-9;:?]*[ -\/]*[@-~]/g;

  function Viewer(box) {
    this.box = box;
    this.rowsEl = box.querySelector('.log-rows');
    this.spacer = box.querySelector('.log-spacer');
    this.state = document.getElementById('log-state');
    this.followButton = document.getElementById('log-follow');
    this.texts = [];      // line text as the job printed it (escapes included)
    this.streams = [];    // 1 for stderr, 0 for stdout
    this.iters = [];      // iteration of each line
    this.times = [];      // when the chunk that began the line reached the server (ms), or null
    this.showTimes = false;
    this.open = {};       // stream/iteration → index of its last line while it has no newline yet
    this.rows = [];       // what is shown: line index (>= 0) or -(iteration + 1) for a section header
    this.iterations = []; // iterations seen, in order
    this.collapsed = {};
    this.following = true;
    this.selected = -1;   // line index of #L… (the first of #L10-L20)
    this.selectedTo = -1; // the last line of a range, else selected
    this.section = [];    // per line: the line index of the section heading it is under, or -1
    this.heads = {};      // line index → {name, collapsed, github}: a section heading the job printed
    this.folded = {};     // heading line index → folded
    this.openSection = {}; // stream/iteration → the heading line of the section being printed
    this.openBefore = {}; // stream/iteration → openSection before its open line was read (read again as it grows)
    this.wrap = false;
    this.started = Date.parse(box.dataset.started || ''); // the job's start (ms), for times since it
    this.wantedLine = 0;  // a #L… line not arrived yet
    this.matches = [];
    this.current = -1;
    this.query = '';
    this.scheduled = false;
    this.programmatic = false;
    var self = this;
    box.addEventListener('scroll', function () { self.onScroll(); });
    window.addEventListener('resize', function () { self.schedule(); });
    box.addEventListener('click', function (e) {
      var header = e.target.closest('.log-section');
      if (header) self.toggle(Number(header.dataset.iteration));
      var fold = e.target.closest('.log-fold');
      if (fold) self.fold(Number(fold.dataset.head));
      // Shift-click on a line number makes a range from the selected line (#L10-L20), as GitHub does.
      var n = e.target.closest('.log-n');
      if (n && e.shiftKey && self.selected >= 0) {
        e.preventDefault();
        var to = Number(n.closest('.log-row').dataset.line);
        var from = self.selected + 1;
        window.location.hash = '#L' + Math.min(from, to) + '-L' + Math.max(from, to);
      }
    });
    var wrapButton = document.getElementById('log-wrap');
    if (wrapButton) wrapButton.addEventListener('click', function () {
      self.wrap = !self.wrap;
      wrapButton.setAttribute('aria-pressed', self.wrap ? 'true' : 'false');
      box.classList.toggle('log-wrapped', self.wrap);
      self.render();
    });
    if (this.followButton) this.followButton.addEventListener('click', function () { self.setFollowing(!self.following); });
    var timesButton = document.getElementById('log-times');
    if (timesButton) timesButton.addEventListener('click', function () {
      self.showTimes = !self.showTimes;
      timesButton.setAttribute('aria-pressed', self.showTimes ? 'true' : 'false');
      self.render();
    });
    window.addEventListener('hashchange', function () { self.fromHash(); });
    this.fromHash();
    this.searchControls();
  }

  Viewer.prototype.lineCount = function () { return this.texts.length; };

  /** A count grouped by thousands, as the console writes every number (Format.number: 22,211). */
  function grouped(n) { return n.toLocaleString('en-US'); }

  Viewer.prototype.clear = function () {
    this.texts = [];
    this.streams = [];
    this.iters = [];
    this.times = [];
    this.open = {};
    this.section = [];
    this.heads = {};
    this.openSection = {};
    this.openBefore = {};
    this.rows = [];
    this.iterations = [];
    this.matches = [];
    this.current = -1;
    this.schedule();
  };

  // ---- the model ----------------------------------------------------------------------------------

  Viewer.prototype.add = function (stream, iteration, text, at) {
    var time = at ? Date.parse(at) : NaN;
    var key = stream + '/' + iteration;
    if (this.iterations.indexOf(iteration) < 0) {
      this.iterations.push(iteration);
      this.rows.push(-(iteration + 1));
    }
    var parts = text.split('\n');
    var last = parts.length - 1;
    for (var k = 0; k <= last; k++) {
      var part = parts[k];
      if (k === last && part === '') break; // the text ended with its newline
      var open = this.open[key];
      if (k === 0 && open !== undefined) {
        this.texts[open] += part;
        if (this.classify(open, key)) this.rebuildRows(); // a heading split across chunks
      } else {
        this.texts.push(part);
        this.streams.push(stream === 'stderr' ? 1 : 0);
        this.iters.push(iteration);
        this.times.push(isNaN(time) ? null : time);
        this.openBefore[key] = this.openSection[key];
        this.classify(this.texts.length - 1, key);
        if (!this.collapsed[iteration]) this.insertRow(this.texts.length - 1, iteration);
      }
      if (k < last) delete this.open[key];
      else this.open[key] = this.texts.length - 1;
    }
    this.schedule();
  };

  // Which section the line is in and whether it is a heading or a group's end (log-lines.js),
  // from the section open before it; returns whether that changed (the line grew into a heading).
  Viewer.prototype.classify = function (i, key) {
    var before = this.openBefore[key];
    var plain = this.plain(i);
    var head = window.BatonLogLines.sectionStart(plain);
    var was = this.section[i] + '/' + (this.heads[i] ? this.heads[i].name : '');
    var open = before === undefined || before === null ? -1 : before;
    delete this.heads[i];
    if (head) {
      this.heads[i] = head;
      if (!(i in this.folded)) this.folded[i] = head.collapsed;
      this.section[i] = -1;
      this.openSection[key] = i;
    } else if (open >= 0 && this.heads[open] && this.heads[open].github && window.BatonLogLines.sectionEnd(plain)) {
      this.section[i] = open;
      this.openSection[key] = null;
    } else {
      this.section[i] = open;
      this.openSection[key] = before;
    }
    return was !== 'undefined/' && was !== this.section[i] + '/' + (head ? head.name : '');
  };

  Viewer.prototype.hidden = function (i) {
    return this.section[i] >= 0 && this.folded[this.section[i]];
  };

  Viewer.prototype.fold = function (head) {
    this.folded[head] = !this.folded[head];
    this.rebuildRows();
    this.render();
  };

  // Rows of one iteration stay together under their header even when stdout and stderr interleave.
  Viewer.prototype.insertRow = function (line, iteration) {
    if (this.hidden(line)) return;
    var last = this.rows.length ? this.rows[this.rows.length - 1] : null;
    var lastIter = last === null ? null : (last < 0 ? -last - 1 : this.iters[last]);
    if (lastIter === iteration) this.rows.push(line);
    else this.rebuildRows();
  };

  Viewer.prototype.rebuildRows = function () {
    var rows = [];
    var byIter = {};
    for (var i = 0; i < this.texts.length; i++) (byIter[this.iters[i]] = byIter[this.iters[i]] || []).push(i);
    for (var j = 0; j < this.iterations.length; j++) {
      var it = this.iterations[j];
      rows.push(-(it + 1));
      if (this.collapsed[it]) continue;
      var lines = byIter[it] || [];
      for (var k = 0; k < lines.length; k++) if (!this.hidden(lines[k])) rows.push(lines[k]);
    }
    this.rows = rows;
  };

  Viewer.prototype.toggle = function (iteration) {
    this.collapsed[iteration] = !this.collapsed[iteration];
    this.rebuildRows();
    this.render();
  };

  Viewer.prototype.plain = function (i) {
    var t = this.texts[i];
    return t.indexOf('\x1b') < 0 && !/[\x00-\x08\x0b-\x1f\x7f]/.test(t) ? t : t.replace(OSC, '').replace(SGR_ALL, '').replace(LEFTOVER, '');
  };

  // ---- rendering ----------------------------------------------------------------------------------

  Viewer.prototype.schedule = function () {
    if (this.scheduled) return;
    this.scheduled = true;
    var self = this;
    requestAnimationFrame(function () {
      self.scheduled = false;
      self.spacer.style.height = self.geometry().height + 'px'; // before scrolling to where the rows will be
      if (self.wantedLine && self.wantedLine <= self.lineCount()) self.select(self.wantedLine - 1, true);
      if (self.following) self.scrollToEnd();
      self.render();
    });
  };

  Viewer.prototype.geometry = function () {
    var total = this.rows.length * ROW;
    var height = Math.min(total, MAX_PX);
    var view = this.box.clientHeight;
    var visible = Math.ceil(view / ROW);
    var scaled = total > MAX_PX;
    return { total: total, height: height, view: view, visible: visible, scaled: scaled,
      maxScroll: Math.max(0, height - view), maxFirst: Math.max(0, this.rows.length - visible) };
  };

  Viewer.prototype.firstRow = function (g) {
    var top = this.box.scrollTop;
    if (!g.scaled) return Math.floor(top / ROW);
    return g.maxScroll > 0 ? Math.round(top / g.maxScroll * g.maxFirst) : 0;
  };

  Viewer.prototype.render = function () {
    var g = this.geometry();
    if (this.flowing()) return this.renderFlow();
    this.rowsEl.style.position = '';
    this.spacer.style.height = g.height + 'px';
    var first = this.firstRow(g);
    if (this.wrap) return this.renderWrapped(g, first);
    var from = Math.max(0, first - OVERSCAN);
    var to = Math.min(this.rows.length, first + g.visible + OVERSCAN);
    // Unscaled, rows sit where they belong; scaled, the block follows the view.
    var offset = g.scaled ? this.box.scrollTop - (first - from) * ROW : from * ROW;
    this.rowsEl.style.transform = 'translateY(' + Math.max(0, offset) + 'px)';
    var fragment = document.createDocumentFragment();
    for (var r = from; r < to; r++) fragment.appendChild(this.rowElement(this.rows[r]));
    this.rowsEl.replaceChildren(fragment);
  };

  // Wrapped lines have their own heights. A short log is all in the page, in flow; a long one keeps
  // the virtual list: its block starts at the view's top with the first row in view (scrolling one
  // row's height moves one line), and at the end its last row ends at the view's bottom.
  Viewer.prototype.flowing = function () { return this.wrap && this.rows.length <= WRAP_ALL; };

  Viewer.prototype.renderFlow = function () {
    this.spacer.style.height = '';
    this.rowsEl.style.position = 'static';
    this.rowsEl.style.transform = 'none';
    var fragment = document.createDocumentFragment();
    for (var r = 0; r < this.rows.length; r++) fragment.appendChild(this.rowElement(this.rows[r]));
    this.rowsEl.replaceChildren(fragment);
  };

  Viewer.prototype.renderWrapped = function (g, first) {
    var atEnd = g.maxScroll > 0 && this.box.scrollTop >= g.maxScroll - 1;
    var from = atEnd ? Math.max(0, this.rows.length - g.visible - OVERSCAN) : first;
    var to = atEnd ? this.rows.length : Math.min(this.rows.length, first + g.visible + OVERSCAN);
    var fragment = document.createDocumentFragment();
    for (var r = from; r < to; r++) fragment.appendChild(this.rowElement(this.rows[r]));
    this.rowsEl.replaceChildren(fragment);
    var top = this.box.scrollTop;
    if (atEnd) top = Math.max(0, Math.min(top, top + g.view - this.rowsEl.offsetHeight));
    this.rowsEl.style.transform = 'translateY(' + top + 'px)';
  };

  Viewer.prototype.rowElement = function (row) {
    var div = document.createElement('div');
    if (row < 0) {
      var iteration = -row - 1;
      div.className = 'log-row log-header';
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'log-section';
      button.dataset.iteration = iteration;
      button.setAttribute('aria-expanded', this.collapsed[iteration] ? 'false' : 'true');
      // Reports count iterations from 0, the job from 1 (BATON_ITERATION): the heading says what the job saw.
      button.textContent = (this.collapsed[iteration] ? '▸' : '▾') + ' Iteration ' + (iteration + 1);
      div.appendChild(button);
      return div;
    }
    var n = row + 1;
    var selected = this.selected >= 0 && row >= this.selected && row <= Math.max(this.selected, this.selectedTo);
    div.className = 'log-row' + (this.streams[row] ? ' log-stderr' : '') + (selected ? ' log-selected' : '')
        + (this.current >= 0 && this.matches[this.current] === row ? ' log-current' : '');
    div.dataset.line = n;
    var a = document.createElement('a');
    a.className = 'log-n';
    a.href = '#L' + n;
    a.textContent = n;
    div.appendChild(a);
    if (this.showTimes) {
      var time = document.createElement('span');
      time.className = 'log-time';
      time.textContent = this.times[row] === null ? '' : new Date(this.times[row]).toISOString().substring(11, 23);
      div.appendChild(time);
      // Beside the clock, the time since the job started (or since its first line, when the page has no start).
      var since = document.createElement('span');
      since.className = 'log-since';
      var start = isNaN(this.started) ? this.times[0] : this.started;
      since.textContent = this.times[row] === null || start === null || start === undefined ? '' : elapsed(this.times[row] - start);
      div.appendChild(since);
    }
    var text = document.createElement('span');
    text.className = 'log-text';
    var head = this.heads[row];
    if (head) {
      var fold = document.createElement('button');
      fold.type = 'button';
      fold.className = 'log-fold';
      fold.dataset.head = row;
      fold.setAttribute('aria-expanded', this.folded[row] ? 'false' : 'true');
      fold.textContent = (this.folded[row] ? '▸ ' : '▾ ') + head.name;
      text.appendChild(fold);
    } else {
      this.styled(this.texts[row], text);
    }
    div.appendChild(text);
    return div;
  };

  Viewer.prototype.styled = function (raw, into) { window.BatonLogText.styled(raw, into, this.query); };
  var elapsed = function (ms) { return window.BatonLogText.elapsed(ms); };

  // ---- scrolling, following, line links -------------------------------------------------------------

  Viewer.prototype.scrollToRow = function (r) {
    if (this.flowing()) {
      this.render();
      var el = this.rowsEl.children[r];
      if (el) this.scrollTo(el.offsetTop - this.box.clientHeight / 3);
      return;
    }
    var g = this.geometry();
    this.scrollTo(g.scaled ? (g.maxFirst > 0 ? r / g.maxFirst * g.maxScroll : 0) : Math.max(0, r * ROW - g.view / 3));
  };

  Viewer.prototype.scrollToEnd = function () {
    this.scrollTo(this.box.scrollHeight);
  };

  // A scroll of ours is not the user's: its scroll event must not pause following. Only a move
  // that really happens fires that event, so the mark is set only then.
  Viewer.prototype.scrollTo = function (top) {
    var target = Math.max(0, Math.min(Math.round(top), this.box.scrollHeight - this.box.clientHeight));
    if (Math.abs(this.box.scrollTop - target) < 1) return;
    this.programmatic = true;
    this.box.scrollTop = target;
  };

  Viewer.prototype.onScroll = function () {
    if (this.programmatic) {
      this.programmatic = false;
    } else {
      var atEnd = this.box.scrollTop + this.box.clientHeight >= this.box.scrollHeight - ROW;
      if (atEnd !== this.following) this.setFollowing(atEnd);
    }
    this.render();
  };

  Viewer.prototype.setFollowing = function (on) {
    this.following = on;
    if (this.followButton) {
      this.followButton.setAttribute('aria-pressed', on ? 'true' : 'false');
      this.followButton.textContent = on ? 'Following the end' : 'Follow the end';
    }
    if (on) this.schedule();
  };

  // #L120 or a range, #L10-L20: selected, and scrolled to its first line.
  Viewer.prototype.fromHash = function () {
    var m = /^#L(\d+)(?:-L(\d+))?$/.exec(window.location.hash);
    if (!m) return;
    this.setFollowing(false);
    this.wantedLine = Number(m[1]);
    this.wantedTo = m[2] ? Number(m[2]) : 0;
    if (this.wantedLine <= this.lineCount()) this.select(this.wantedLine - 1, true);
  };

  Viewer.prototype.select = function (line, scroll) {
    this.selected = line;
    this.selectedTo = this.wantedTo ? this.wantedTo - 1 : line;
    this.wantedLine = 0;
    this.reveal(line, scroll);
  };

  Viewer.prototype.reveal = function (line, scroll) {
    var changed = false;
    if (this.collapsed[this.iters[line]]) {
      this.collapsed[this.iters[line]] = false;
      changed = true;
    }
    if (this.hidden(line)) {
      this.folded[this.section[line]] = false;
      changed = true;
    }
    if (changed) this.rebuildRows();
    if (scroll) {
      var r = this.rows.indexOf(line);
      if (r >= 0) this.scrollToRow(r);
    }
    this.render();
  };

  // ---- search -----------------------------------------------------------------------------------------

  Viewer.prototype.searchControls = function () {
    var input = document.getElementById('log-search');
    if (!input) return;
    var self = this;
    var timer = null;
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () { self.search(input.value); }, 200);
    });
    input.addEventListener('keydown', function (e) {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      clearTimeout(timer);
      if (input.value.toLowerCase() !== self.query) self.search(input.value);
      self.step(e.shiftKey ? -1 : 1);
    });
    document.getElementById('log-next').addEventListener('click', function () { self.step(1); });
    document.getElementById('log-prev').addEventListener('click', function () { self.step(-1); });
  };

  Viewer.prototype.search = function (text) {
    this.query = text.toLowerCase();
    this.matches = [];
    this.current = -1;
    if (this.query) {
      for (var i = 0; i < this.texts.length && this.matches.length < MAX_MATCHES; i++) {
        if (this.plain(i).toLowerCase().indexOf(this.query) >= 0) this.matches.push(i);
      }
    }
    this.announce();
    this.render();
  };

  Viewer.prototype.step = function (direction) {
    if (!this.matches.length) return;
    this.setFollowing(false);
    this.current = (this.current + direction + this.matches.length) % this.matches.length;
    if (this.current < 0) this.current = 0;
    this.reveal(this.matches[this.current], true);
    this.announce();
  };

  Viewer.prototype.announce = function () {
    var out = document.getElementById('log-matches');
    if (!out) return;
    if (!this.query) out.textContent = '';
    else if (!this.matches.length) out.textContent = 'No match';
    else out.textContent = (this.current >= 0 ? grouped(this.current + 1) + ' of ' : '') + grouped(this.matches.length)
        + (this.matches.length >= MAX_MATCHES ? '+' : '') + (this.matches.length === 1 ? ' match' : ' matches');
  };

  // ---- the stream ---------------------------------------------------------------------------------------

  Viewer.prototype.followStream = function (url) {
    var self = this;
    var source = new EventSource(url);
    this.source = source;
    source.onopen = function () { self.state.textContent = 'Following the log.'; };
    source.onerror = function () {
      if (source.readyState !== EventSource.CLOSED) self.state.textContent = 'Log stream interrupted; reconnecting…';
    };
    source.addEventListener('log', function (e) {
      var entry = JSON.parse(e.data);
      var stream = String(entry.stream || 'stdout').toLowerCase();
      if (entry.dropped) self.sawMarker = true;
      self.add(stream, entry.iteration || 0, entry.dropped ? '[' + entry.dropped + ' bytes not kept]\n' : entry.text, entry.at);
    });
    source.addEventListener('end', function (e) {
      source.close();
      // Once the job ended, a marker's place holds the stored bytes it stood for (api.md, "Job
      // logs"): a log that showed markers live is read once more from the start, so it is whole.
      if (self.sawMarker && !self.reread) {
        self.reread = true;
        self.sawMarker = false;
        self.clear();
        self.followStream(url);
        return;
      }
      self.state.textContent = 'Log complete: the job is ' + JSON.parse(e.data).status + ' (' + grouped(self.lineCount()) + ' lines).';
      if (self.query) self.search(self.query);
    });
    // The handle closes whichever stream is current (a log read again has a new one).
    return { close: function () { self.source.close(); } };
  };

  window.BatonLog = { Viewer: Viewer };
})();
