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

  function uncertainty(m) {
    return m * (1 - m);           // Bernoulli variance: largest at 0.5
  }

  /* Deterministic PRNG (mulberry32) so that a stored seed replays the same order. */
  function rng(seed) {
    var a = seed >>> 0;
    return function () {
      a = (a + 0x6D2B79F5) >>> 0;
      var t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function newState(seed) {
    return { version: 1, seed: (seed >>> 0) || 1, step: 0, mastery: {}, answered: {}, log: [] };
  }

  function masteryOf(state, topic) {
    var m = state.mastery[topic];
    return typeof m === "number" ? m : PARAMS.prior;
  }

  /* Record an answer: BKT update of its topic, mark the question answered in this round. */
  function record(state, question, correct) {
    var t = question.topic;
    state.mastery[t] = update(masteryOf(state, t), !!correct);
    var seen = state.answered[t] || (state.answered[t] = []);
    if (seen.indexOf(question.id) < 0) seen.push(question.id);
    state.log.push({ id: question.id, correct: !!correct });
    state.step += 1;
    return state;
  }

  /* The next question: the topic whose mastery is most uncertain (ties: fewer answers, then
   * topic id), and in it an unanswered question chosen by the seeded PRNG. When a topic's pool
   * is exhausted its round starts again (answers are forgotten for selection, not for mastery). */
  function next(state, bank) {
    var byTopic = {};
    bank.forEach(function (q) { (byTopic[q.topic] = byTopic[q.topic] || []).push(q); });
    var topics = Object.keys(byTopic).sort();
    if (!topics.length) return null;
    topics.forEach(function (t) {
      var seen = state.answered[t] || [];
      if (byTopic[t].every(function (q) { return seen.indexOf(q.id) >= 0; })) {
        state.answered[t] = [];   // pool exhausted: new round for this topic
      }
    });
    topics.sort(function (a, b) {
      var d = uncertainty(masteryOf(state, b)) - uncertainty(masteryOf(state, a));
      if (Math.abs(d) > 1e-12) return d;
      var na = (state.answered[a] || []).length, nb = (state.answered[b] || []).length;
      return na !== nb ? na - nb : (a < b ? -1 : a > b ? 1 : 0);
    });
    var topic = topics[0];
    var seen = state.answered[topic] || [];
    var pool = byTopic[topic].filter(function (q) { return seen.indexOf(q.id) < 0; });
    pool.sort(function (a, b) { return a.id < b.id ? -1 : a.id > b.id ? 1 : 0; });
    var r = rng(state.seed + state.step * 7919);
    return pool[Math.floor(r() * pool.length)];
  }

  var api = { PARAMS: PARAMS, update: update, uncertainty: uncertainty, newState: newState,
              masteryOf: masteryOf, record: record, next: next, rng: rng };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.CitavialPractice = api;
})(this);
