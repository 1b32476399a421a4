/* citavial exam simulation — pure functions, no DOM (simulacro.js is the page; the tests drive
 * this file under node too). The DGT theory exam for permiso B: 30 questions, 30 minutes, pass
 * with at most 3 errors (RD 818/2009, anexo VI). */
(function (root) {
  "use strict";

  var RULES = Object.freeze({ questions: 30, seconds: 30 * 60, maxErrors: 3 });

  /* util.js: under node (the tests) by require, in the page as loaded before this file */
  var rng = (typeof module !== "undefined" && module.exports ? require("./util.js")
    : root.CitavialUtil).rng;

  function byId(a, b) { return a.id < b.id ? -1 : a.id > b.id ? 1 : 0; }

  function shuffle(list, r) {
    var out = list.slice();
    for (var i = out.length - 1; i > 0; i--) {
      var j = Math.floor(r() * (i + 1)), t = out[i];
      out[i] = out[j]; out[j] = t;
    }
    return out;
  }

  /* Draw ``n`` distinct questions spread across topics like the real exam: topics are visited
   * round-robin (in a seeded order), each giving its next seeded-shuffled question, so no topic
   * gets two questions more than another while it still has questions left. */
  function draw(bank, seed, n) {
    var count = Math.min(n || RULES.questions, bank.length);
    var r = rng(seed);
    var pools = {};
    bank.slice().sort(byId).forEach(function (q) {
      (pools[q.topic] = pools[q.topic] || []).push(q);
    });
    var topics = shuffle(Object.keys(pools).sort(), r);
    topics.forEach(function (t) { pools[t] = shuffle(pools[t], r); });
    var picked = [];
    while (picked.length < count) {
      for (var i = 0; i < topics.length && picked.length < count; i++) {
        var q = pools[topics[i]].shift();
        if (q) picked.push(q);
      }
    }
    return shuffle(picked, r).map(function (q) { return q.id; });
  }

  function newExam(bank, seed, now) {
    var ids = draw(bank, seed);
    return { version: 1, seed: seed >>> 0, started: now, ids: ids,
             answers: ids.map(function () { return null; }),
             flagged: ids.map(function () { return false; }), finished: null };
  }

  function remaining(exam, now) {
    var left = RULES.seconds - Math.floor((now - exam.started) / 1000);
    return left > 0 ? left : 0;
  }

  function clock(seconds) {
    var m = Math.floor(seconds / 60), s = seconds % 60;
    return (m < 10 ? "0" : "") + m + ":" + (s < 10 ? "0" : "") + s;
  }

  /* Score a finished exam: an unanswered question counts as an error, as in the DGT exam. */
  function score(exam, byIdMap) {
    var errors = 0, topics = {};
    exam.ids.forEach(function (id, i) {
      var q = byIdMap[id], ok = exam.answers[i] === q.correct;
      if (!ok) errors += 1;
      var t = topics[q.topic] || (topics[q.topic] = [0, 0]);
      t[0] += ok ? 1 : 0; t[1] += 1;
    });
    return { errors: errors, total: exam.ids.length, passed: errors <= RULES.maxErrors,
             topics: topics };
  }

  /* The history entry stored for a finished exam: the score, and its questions and answers so
   * that a past exam can be reviewed again. */
  function summary(exam, byIdMap) {
    var s = score(exam, byIdMap);
    return { finished: exam.finished, seconds: Math.round((exam.finished - exam.started) / 1000),
             errors: s.errors, total: s.total, passed: s.passed, topics: s.topics,
             ids: exam.ids.slice(), answers: exam.answers.slice(), flagged: exam.flagged.slice() };
  }

  /* A history entry as an exam to review, or null when it has no questions stored (exams
   * finished before they were kept) or one of them is no longer in the bank. */
  function reviewable(entry, byIdMap) {
    if (!entry || !Array.isArray(entry.ids) || !Array.isArray(entry.answers) ||
        entry.ids.length !== entry.answers.length || !entry.ids.length) return null;
    if (!entry.ids.every(function (id) { return byIdMap[id]; })) return null;
    var flagged = Array.isArray(entry.flagged) ? entry.flagged : [];
    return { ids: entry.ids, finished: entry.finished,
             answers: entry.answers.map(function (a) { return typeof a === "number" ? a : null; }),
             flagged: entry.ids.map(function (_, i) { return !!flagged[i]; }) };
  }

  /* Per-topic accuracy over every stored exam: {topic: [right, answered]}. */
  function accuracy(history) {
    var out = {};
    history.forEach(function (h) {
      Object.keys(h.topics || {}).forEach(function (t) {
        var v = h.topics[t];   // [right, asked]; a damaged entry is skipped, never NaN
        if (!Array.isArray(v) || !(v[1] > 0) || !(v[0] >= 0) || v[0] > v[1]) return;
        var acc = out[t] || (out[t] = [0, 0]);
        acc[0] += Math.floor(v[0]); acc[1] += Math.floor(v[1]);
      });
    });
    return out;
  }

  /* Check an imported progress file; return null when it is not one of ours. */
  function validImport(obj) {
    if (!obj || obj.schema !== "citavial-progress/1") return null;
    var history = Array.isArray(obj.simulacro) ? obj.simulacro.filter(function (h) {
      return h && typeof h.errors === "number" && typeof h.total === "number" &&
        typeof h.finished === "number" && h.topics && typeof h.topics === "object";
    }) : [];
    return { practice: obj.practice && typeof obj.practice === "object" ? obj.practice : null,
             simulacro: history };
  }

  var api = { RULES: RULES, rng: rng, draw: draw, newExam: newExam, remaining: remaining,
              clock: clock, score: score, summary: summary, reviewable: reviewable,
              accuracy: accuracy,
              validImport: validImport };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.CitavialSimulacro = api;
})(this);
