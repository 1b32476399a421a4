/* citavial chat widget, the view: what one answer shows, built from the worker's events —
 * the answer's own words (its key facts in bold), the option and the words that decide it, the
 * model's lead once the worker keeps a sentence, the sources with their quotes (a quoted table
 * as a table only if its cells are exactly the quote's words). Everything is inserted as text,
 * never as HTML; links are built only from the allowlisted URLs the events carry.
 * window.CitavialChatView(root) → the functions chat.js calls; `root` is the site's root URL
 * (relative links resolve against it). Bundled before chat.js into static/app.<hash>.js. */
(function () {
  "use strict";
  var MONTHS = ("enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre " +
    "diciembre").split(" ");

  window.CitavialChatView = function (ROOT) {
    function el(tag, cls, text) {
      var e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text != null) e.textContent = text;
      return e;
    }
    function fecha(iso) { // "2026-12-01" → "1 de diciembre de 2026"
      var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso || "");
      return m ? +m[3] + " de " + MONTHS[+m[2] - 1] + " de " + m[1] : iso;
    }
    function out(a) { a.target = "_blank"; a.rel = "noopener"; return a; }
    function link(c, text, url) {
      var a = el("a", "cv-chip", text || c.label);
      a.href = new URL(url || c.url, ROOT).href; // allowlisted deep link (page#anchor:~:text=…)
      // The accessible name starts with the visible text (WCAG 2.5.3), then says where it opens.
      a.setAttribute("aria-label", a.textContent + " (se abre en una pestaña nueva)");
      return out(a);
    }

    function marked(text, spans) { // the answer's words, with its key facts in bold
      var p = el("p", "cv-a"), at = 0;
      (spans || []).forEach(function (s) {
        if (s[0] < at) return;
        p.appendChild(document.createTextNode(text.slice(at, s[0])));
        p.appendChild(el("strong", null, text.slice(s[0], s[1])));
        at = s[1];
      });
      p.appendChild(document.createTextNode(text.slice(at)));
      return p;
    }

    /* Words shown beside the answer's own: a passage of another article part opens under its
     * label, as the sources label it ("art. 104"), and its letters are a list, as the answer's. */
    function beside(box, pieces, cls) {
      var ul = null;
      (pieces || []).forEach(function (p) {
        if (p.heading) box.appendChild(el("p", "cv-part", p.heading));
        if (!p.item) { ul = null; box.appendChild(el("p", cls, p.text)); return; }
        if (!ul || p.heading) ul = box.appendChild(el("ul", "cv-list " + cls + "-list"));
        ul.appendChild(el("li", "cv-li " + cls, p.text));
      });
    }

    function answer(st, d) {
      var box = el("div", "cv-answer");
      box.appendChild(el("p", "cv-label-a", d.label));
      if (d.option) {
        box.appendChild(el("p", "cv-option", d.option.letter ? "Respuesta: " + d.option.letter +
          ") " + d.option.text : d.option.text));
        if (d.option.letter && d.option.words && d.option.url) { // the words that decide it
          var why = el("p", "cv-option-why", "Lo dice el texto: "), w = out(el("a",
            "cv-option-words", "«" + d.option.words + "»"));
          w.href = new URL(d.option.url, ROOT).href; // proven span link (allowlisted page)
          w.setAttribute("aria-label", w.textContent + " (se abre en una pestaña nueva)");
          why.appendChild(w);
          box.appendChild(why);
        }
      }
      if (d.clarify) box.appendChild(el("p", "cv-clarify", d.clarify)); // asks back: not a quote
      beside(box, d.before, "cv-before"); // what names its antecedent ("Dichos ocupantes…")
      if (d.lead_in) box.appendChild(el("p", "cv-lead-in", d.lead_in.text));
      var items = d.items || [], inList = items.some(function (p) { return p.answer; });
      if (d.table) {
        var t = el("table", "cv-table");
        t.appendChild(el("caption", null, "Celdas de la tabla que responden"));
        d.table.cells.forEach(function (c) {
          var tr = el("tr"), th = el("th", null, c.row + " · " + c.column);
          th.scope = "row";
          tr.append(th, el("td", null, c.value + (c.unit ? " " + c.unit : "")));
          tr.lastChild.className = "cv-fact";
          t.appendChild(tr);
        });
        box.appendChild(t);
      } else if (!inList) box.appendChild(marked(d.text, d.emphasis));
      if (items.length) { // the list the answer belongs to or introduces, in the text's order
        var ul = el("ul", "cv-list");
        items.forEach(function (p) {
          var li = el("li", p.answer ? "cv-li cv-li-answer" : "cv-li");
          if (p.answer) li.appendChild(marked(d.text, d.emphasis));
          else li.textContent = p.text;
          ul.appendChild(li);
        });
        box.appendChild(ul);
      }
      if (d.exception) box.appendChild(el("p", "cv-exception", "Excepción: " + d.exception.text));
      beside(box, d.after, "cv-after"); // what qualifies it, the same rule's other cases
      st.answer = box;
      st.item.appendChild(box);
    }

    /* The model's lead: a sentence's words are held here, out of the page and of the live region,
     * until the worker judges it: `keep` shows it, `retract` drops it. One the stream leaves
     * unjudged (done, error, abort, connection lost) is never shown (docs/answers.md). */
    function token(st, d) {
      var held = st.sent[d.s] || (st.sent[d.s] = { text: "", judged: false });
      if (d.text != null && !held.judged) held.text += d.text;
    }

    function keep(st, d) {
      var held = st.sent[d.s];
      if (!held || held.judged || st.over) return;
      held.judged = true;
      if (!st.lead) {
        st.lead = el("p", "cv-lead");
        st.lead.appendChild(el("span", "cv-label-a", "Resumen del modelo (compruébalo): "));
        st.item.insertBefore(st.lead, st.answer);
      }
      var span = el("span", "cv-s", held.text);
      span.setAttribute("data-s", String(d.s));
      var next = Array.prototype.find.call(st.lead.querySelectorAll(".cv-s"), function (e) {
        return +e.getAttribute("data-s") > d.s; // sentence order, whatever the verdicts' order
      });
      st.lead.insertBefore(span, next || null);
    }

    function retract(st, d) {
      var held = st.sent[d.s];
      if (held && !held.judged) { held.judged = true; held.text = ""; } // never shown
    }

    function abstain(st, d) {
      st.item.appendChild(el("p", "cv-abstain", d.message));
      if (d.passages && d.passages.length) sources(st, d.passages, true, "Pasajes que más se acercan");
    }

    function cites(st, d) {
      var first = d.citations[0];
      if (first && st.answer) { // the chip goes right after the words it supports
        var chip = link(first, "Ver estas palabras en " + first.label, first.span_url);
        st.answer.appendChild(chip);
      }
      sources(st, d.citations, false, "Fuentes");
    }

    function sources(st, list, openIt, title) {
      var box = el("details", "cv-cites");
      box.open = !!openIt;
      box.appendChild(el("summary", null, title + " (" + list.length + ")"));
      list.forEach(function (c) {
        var fig = el("figure", "cv-cite");
        var bq = el("blockquote", "cv-quote", c.quote);
        fig.appendChild(bq);
        asTable(c, fig, bq);
        var cap = el("figcaption");
        cap.appendChild(link(c, c.label));
        var boe = out(el("a", "cv-boe", "BOE"));
        boe.href = c.source_url;
        cap.append(" · en vigor a " + fecha(c.as_of) + " · ", boe);
        fig.appendChild(cap);
        box.appendChild(fig);
      });
      if (list[0]) box.appendChild(el("p", "cv-license", list[0].source_license));
      // a table too wide for the panel scrolls in its box, reachable by keyboard (tables.js)
      box.addEventListener("toggle", marks);
      st.item.appendChild(box);
      marks();
    }
    function marks() { if (window.CitavialTables) window.CitavialTables.mark(); }

    /* A quoted table is shown as a table: the worker sends its rows and cells with the citation
     * (`rows`, from the index) — no fetch of the cited page, so it reads the same from file:// as
     * over http — and they are used only if, read in order, they are exactly the quote's words:
     * what is shown is still the verified quote. Otherwise the quote stays one run of text. */
    function flat(s) { return String(s).replace(/\s+/g, " ").trim(); }
    function asTable(c, fig, bq) {
      if (!Array.isArray(c.rows) || !c.rows.length) return;
      var rows = c.rows.map(function (row) {
        return (Array.isArray(row) ? row : []).map(function (cell) {
          return { text: flat(cell && cell.text != null ? cell.text : ""), header: !!(cell && cell.header) };
        });
      });
      /* the page's rule (_macros.html): a first row whose non-empty cells are all headers is the
         column header; then the first cell of every other row heads its row */
      var top = rows[0], headRow = top.some(function (x) { return x.header; }) &&
        top.every(function (x) { return x.header || !x.text; });
      var t = el("table", "cv-table cv-quote-table"), words = [];
      t.setAttribute("aria-label", "Tabla citada: " + c.label);
      rows.forEach(function (row, r) {
        var tr = el("tr");
        row.forEach(function (cell, j) {
          if (cell.text) words.push(cell.text);
          var th = (cell.header || (headRow && top.length > 1 && r > 0 && j === 0)) && !!cell.text;
          var out = el(th ? "th" : "td", null, cell.text);
          if (th) out.scope = headRow && r === 0 ? "col" : "row";
          tr.appendChild(out);
        });
        t.appendChild(tr);
      });
      if (words.join(" ") !== flat(c.quote)) return;
      var box = el("div", "cv-table-wrap");
      box.appendChild(t);
      fig.replaceChild(box, bq);
    }

    return { el: el, out: out, link: link, answer: answer, token: token, keep: keep,
      retract: retract, abstain: abstain, cites: cites };
  };
})();
