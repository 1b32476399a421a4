/* citavial practice — the ONE implementation of Bayesian Knowledge Tracing and of the question
 * selector. The page (practice.js) uses it in the browser; tests/test_practice_bkt.py drives the
 * same file under node with Hypothesis-generated histories. Pure functions, no DOM. */
(function (root) {
  "use strict";

  // Declared BKT parameters (per topic), with their justification:
  // - prior 0.25: a learner opening the practice has usually read part of the rules; the classic
  //   BKT fits (Corbett & Anderson 1995) put P(L0) between 0.1 and 0.4.
  // - learn 0.15: chance of learning the rule from one explained question; mid-range of fitted
  //   values (0.05–0.3), and our explanations quote the rule itself.
  // - guess 1/3: three options, one correct — a pure guess is right one time in three.
  // - slip 0.10: a student who knows the rule still misreads a question now and then; values
  //   above ~0.1 made single slips erase a whole topic's progress in our trials.
  var PARAMS = Object.freeze({ prior: 0.25, learn: 0.15, guess: 1 / 3, slip: 0.10 });

  function clamp01(x) {
    if (!(x >= 0)) return 0;      // also catches NaN
    return x > 1 ? 1 : x;
  }

  /* One BKT step. The learning transition is credited after a correct answer only: a wrong
   * answer then never raises the estimate and a right one never lowers it (the properties the
   * tests check), while the posterior itself is the textbook one. */
  function update(mastery, correct, params) {
    var p = params || PARAMS;
    var m = clamp01(mastery);
    var post;
    if (correct) {
      var num = m * (1 - p.slip);
      post = num / (num + (1 - m) * p.guess);
      post = post + (1 - post) * p.learn;
      return clamp01(post);
    }
    var numW = m * p.slip;
    var den = numW + (1 - m) * (1 - p.guess);
    post = den > 0 ? numW / den : m;
    return clamp01(post);
  }

  /* util.js: under node (the tests) by require, in the page as loaded before this file */
  var rng = (typeof module !== "undefined" && module.exports ? require("./util.js")
    : root.CitavialUtil).rng;

  function newState(seed) {
    return { version: 1, seed: (seed >>> 0) || 1, step: 0, mastery: {}, answered: {}, log: [],
             review: [] };
  }

  /* Make a stored or imported state safe to use: any missing or mistyped field gets its fresh
   * value, so a hand-edited or older progress file never crashes the page nor shows NaN. */
  function repair(state) {
    var s = state && typeof state === "object" ? state : {};
    var obj = function (v) { return v && typeof v === "object" && !Array.isArray(v) ? v : {}; };
    s.version = 1;
    s.seed = (s.seed >>> 0) || 1;
    s.step = typeof s.step === "number" && s.step >= 0 ? Math.floor(s.step) : 0;
    s.mastery = obj(s.mastery);
    s.answered = obj(s.answered);
    Object.keys(s.answered).forEach(function (t) {
      if (!Array.isArray(s.answered[t])) s.answered[t] = [];
    });
    s.log = (Array.isArray(s.log) ? s.log : []).filter(function (x) {
      return x && typeof x.id === "string";
    }).map(function (x) { return { id: x.id, correct: !!x.correct }; });
    s.review = (Array.isArray(s.review) ? s.review : []).filter(function (r) {
      return r && typeof r.id === "string" && typeof r.due === "number";
    });
    return s;
  }

  function masteryOf(state, topic) {
    var m = state.mastery && state.mastery[topic];
    return typeof m === "number" && m >= 0 && m <= 1 ? m : PARAMS.prior;
  }

  // A failed question comes back REVIEW_GAP questions later (spaced review: two other questions
  // in between, so the answer is recalled rather than copied from the screen just read).
  var REVIEW_GAP = 3;
  // The weakest topic gets at most STREAK questions in a row, so that a student stuck on one
  // topic still sees the others (about two questions in three go to the weakest topic).
  var STREAK = 2;

  /* Record an answer: BKT update of its topic, mark the question answered in this round, and
   * schedule a failed question for review (a review answered right leaves the queue). */
  function record(state, question, correct) {
    var t = question.topic;
    state.mastery[t] = update(masteryOf(state, t), !!correct);
    var seen = state.answered[t] || (state.answered[t] = []);
    if (seen.indexOf(question.id) < 0) seen.push(question.id);
    state.log.push({ id: question.id, correct: !!correct });
    state.step += 1;
    state.review = (state.review || []).filter(function (r) { return r.id !== question.id; });
    if (!correct) state.review.push({ id: question.id, due: state.step - 1 + REVIEW_GAP });
    return state;
  }

  /* The failed question whose review is due now (earliest due, then id), or null. */
  function dueReview(state, byId) {
    var due = (state.review || []).filter(function (r) {
      return byId[r.id] && r.due <= state.step;
    });
    due.sort(function (a, b) { return a.due - b.due || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0); });
    return due.length ? byId[due[0].id] : null;
  }

  /* How many of the last picks in a row were of ``topic``. */
  function streakOf(state, byId, topic) {
    var n = 0;
    for (var i = state.log.length - 1; i >= 0; i--) {
      var q = byId[state.log[i].id];
      if (!q || q.topic !== topic) break;
      n += 1;
    }
    return n;
  }

  /* The next question. A failed question due for review comes first. Otherwise the topic with
   * the LOWEST mastery (ties: fewer answers, then topic id) — what the student does not master
   * yet — unless it already had STREAK questions in a row; in it, an unanswered question chosen
   * by the seeded PRNG. When a topic's pool is exhausted its round starts again (answers are
   * forgotten for selection, not for mastery). */
  function next(state, bank) {
    var byTopic = {}, byId = {};
    bank.forEach(function (q) {
      (byTopic[q.topic] = byTopic[q.topic] || []).push(q); byId[q.id] = q;
    });
    var topics = Object.keys(byTopic).sort();
    if (!topics.length) return null;
    var review = dueReview(state, byId);
    if (review) return review;
    topics.forEach(function (t) {
      var seen = state.answered[t] || [];
      if (byTopic[t].every(function (q) { return seen.indexOf(q.id) >= 0; })) {
        state.answered[t] = [];   // pool exhausted: new round for this topic
      }
    });
    var counts = {};
    state.log.forEach(function (x) {
      var q = byId[x.id];
      if (q) counts[q.topic] = (counts[q.topic] || 0) + 1;
    });
    topics.sort(function (a, b) {
      var d = masteryOf(state, a) - masteryOf(state, b);
      if (Math.abs(d) > 1e-12) return d;
      var na = counts[a] || 0, nb = counts[b] || 0;
      return na !== nb ? na - nb : (a < b ? -1 : a > b ? 1 : 0);
    });
    var topic = topics[0];
    if (topics.length > 1 && streakOf(state, byId, topic) >= STREAK) topic = topics[1];
    var seen = state.answered[topic] || [];
    var pool = byTopic[topic].filter(function (q) { return seen.indexOf(q.id) < 0; });
    pool.sort(function (a, b) { return a.id < b.id ? -1 : a.id > b.id ? 1 : 0; });
    var r = rng(state.seed + state.step * 7919);
    return pool[Math.floor(r() * pool.length)];
  }

  var api = { PARAMS: PARAMS, REVIEW_GAP: REVIEW_GAP, update: update, newState: newState,
              repair: repair, masteryOf: masteryOf, record: record,
              next: next, rng: rng };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.CitavialPractice = api;
})(this);
