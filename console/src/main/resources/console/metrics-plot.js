// The metrics page's plot (docs/console.md): fetches the history of one benchmark and measure as
// JSON from the console (…/metrics/data) and draws it with uPlot: one line per branch and testbed,
// the boundary as a shaded band between its limits, alerts ringed in red, each stored change point
// a dashed vertical line where its new level starts, labelled with its commit range and size (a
// withdrawn or moved one fainter); a click on a point opens its job. The page's tables have the
// same as text.
(function () {
  'use strict';
  var COLOURS = ['#0b57b0', '#116329', '#7a4b00', '#6f42c1', '#b35900', '#005c66'];

  function draw(el, data) {
    var names = [];
    var bySeries = {};
    var times = {};
    data.points.forEach(function (p) {
      var t = Date.parse(p.at) / 1000;
      times[t] = true;
      if (!bySeries[p.series]) {
        bySeries[p.series] = {};
        names.push(p.series);
      }
      bySeries[p.series][t] = p;
    });
    var xs = Object.keys(times).map(Number).sort(function (a, b) { return a - b; });
    var columns = [xs];
    var series = [{}];
    var bands = [];
    var meta = [null];
    names.forEach(function (name, i) {
      var colour = COLOURS[i % COLOURS.length];
      var at = bySeries[name];
      var pick = function (f) { return xs.map(function (t) { return at[t] ? f(at[t]) : null; }); };
      var value = columns.length;
      columns.push(pick(function (p) { return p.value; }));
      series.push({ label: name, stroke: colour, width: 2, spanGaps: true, points: { show: true, size: 6 } });
      meta.push(pick(function (p) { return p; }));
      columns.push(pick(function (p) { return p.upper; }));
      series.push({ label: name + ' upper limit', stroke: colour + '66', dash: [4, 4], spanGaps: true, points: { show: false } });
      meta.push(null);
      columns.push(pick(function (p) { return p.lower; }));
      series.push({ label: name + ' lower limit', stroke: colour + '66', dash: [4, 4], spanGaps: true, points: { show: false } });
      meta.push(null);
      bands.push({ series: [value + 1, value + 2], fill: colour + '1f' });
    });

    function ringAlerts(u) {
      var ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = '#b3261e';
      ctx.lineWidth = 2 * devicePixelRatio;
      meta.forEach(function (points, s) {
        if (!points) return;
        points.forEach(function (p, i) {
          if (!p || !p.alert) return;
          var x = u.valToPos(xs[i], 'x', true);
          var y = u.valToPos(p.value, 'y', true);
          ctx.beginPath();
          ctx.arc(x, y, 7 * devicePixelRatio, 0, 2 * Math.PI);
          ctx.stroke();
        });
      });
      ctx.restore();
    }

    var marks = data.change_points || [];

    function markChangePoints(u) {
      var ctx = u.ctx;
      ctx.save();
      ctx.font = (11 * devicePixelRatio) + 'px sans-serif';
      ctx.lineWidth = 1.5 * devicePixelRatio;
      ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
      marks.forEach(function (c, n) {
        var x = u.valToPos(Date.parse(c.at) / 1000, 'x', true);
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        var colour = c.state === 'current' ? '#6f42c1' : '#6f42c166';
        ctx.strokeStyle = colour;
        ctx.fillStyle = colour;
        ctx.beginPath();
        ctx.moveTo(x, u.bbox.top);
        ctx.lineTo(x, u.bbox.top + u.bbox.height);
        ctx.stroke();
        // Labels step down so that neighbouring ones do not overlap.
        var y = u.bbox.top + (12 + (n % 4) * 13) * devicePixelRatio;
        ctx.fillText(c.range + ' ' + c.change, x + 4 * devicePixelRatio, y);
      });
      ctx.restore();
    }

    var plot = new window.uPlot({
      width: Math.max(280, el.clientWidth),
      height: 320,
      series: series,
      bands: bands,
      scales: { x: { time: true } },
      legend: { live: false },
      hooks: { draw: [ringAlerts, markChangePoints] }
    }, columns, el);

    // A click opens the job of the point nearest the cursor at that time.
    plot.over.addEventListener('click', function () {
      var i = plot.cursor.idx;
      if (i == null) return;
      var best = null;
      var distance = Infinity;
      meta.forEach(function (points, s) {
        if (!points || !points[i] || !points[i].job) return;
        var d = Math.abs(plot.valToPos(points[i].value, 'y') - plot.cursor.top);
        if (d < distance) {
          distance = d;
          best = points[i].job;
        }
      });
      if (best) window.location.href = best;
    });
    window.addEventListener('resize', function () {
      plot.setSize({ width: Math.max(280, el.clientWidth), height: 320 });
    });
    el.dataset.points = String(data.points.length);
    el.dataset.changePoints = String(marks.length);
    el.dataset.drawn = 'true';
  }

  document.addEventListener('DOMContentLoaded', function () {
    var el = document.getElementById('plot');
    if (!el || !window.uPlot) return;
    fetch(el.dataset.src, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (r) {
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.json();
      })
      .then(function (data) { draw(el, data); })
      .catch(function (e) {
        el.textContent = 'The plot could not be loaded (' + e.message + '); the table below has every value.';
      });
  });
})();
