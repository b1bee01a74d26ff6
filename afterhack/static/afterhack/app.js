// Errors an HTMX request could not show in place get a sentence at the top of the page.
document.addEventListener("htmx:responseError", function (event) {
  var status = event.detail.xhr.status;
  var words = {
    403: "You are not allowed to do this.",
    404: "That is no longer there, or it is not shared with you.",
    409: "Someone changed this in the meantime; reload the page and try again.",
  }[status] || "The server could not do this (" + status + "). Try again, and tell an administrator if it repeats.";
  // A store that is down is named by the server; it is restarted by itself.
  var store = event.detail.xhr.getResponseHeader("Afterhack-Unavailable");
  if (status === 503 && store) {
    words = ({postgres: "PostgreSQL", falkordb: "The graph database (FalkorDB)", broker: "The task queue"}[store] || store) +
      " is not answering right now; it restarts by itself. Try again in a few seconds.";
  }
  var box = document.getElementById("messages");
  if (!box) return;
  var line = document.createElement("p");
  line.className = "message error";
  line.setAttribute("role", "alert");
  line.textContent = words;
  box.replaceChildren(line);
});
document.addEventListener("htmx:sendError", function () {
  var box = document.getElementById("messages");
  if (!box) return;
  var line = document.createElement("p");
  line.className = "message error";
  line.setAttribute("role", "alert");
  line.textContent = "The server did not answer. Check your connection and try again.";
  box.replaceChildren(line);
});

// Source page: a click on a highlighted passage (or Enter on a focused one) shows its claims.
document.addEventListener("keydown", function (event) {
  if ((event.key === "Enter" || event.key === " ") && event.target.matches && event.target.matches("mark[data-claims]")) {
    event.preventDefault();
    event.target.click();
  }
});
document.addEventListener("click", function (event) {
  var mark = event.target.closest && event.target.closest("mark[data-claims]");
  var text = document.getElementById("source-text");
  if (!mark || !text || !text.contains(mark)) return;
  var url = text.dataset.cardsUrl + "?ids=" + encodeURIComponent(mark.dataset.claims);
  text.querySelectorAll("mark.selected").forEach(function (m) { m.classList.remove("selected"); });
  mark.classList.add("selected");
  htmx.ajax("GET", url, { target: "#claim-panel", swap: "innerHTML" });
});

// Selecting words in a source's text fills a form's exact quote and its start, counted in code
// points (as the server counts), not in JavaScript's UTF-16 units: the "Add a claim" form on the
// source page, the passage a correction cites on the correct page. The text names the two fields
// in data-quote-input and data-start-input; the quote field then gets an input event.
document.addEventListener("mouseup", function () {
  var selection = window.getSelection();
  if (!selection || selection.isCollapsed || !selection.rangeCount) return;
  var range = selection.getRangeAt(0);
  var first = range.startContainer;
  var text = (first.nodeType === Node.ELEMENT_NODE ? first : first.parentElement).closest("[data-quote-input]");
  if (!text || !text.contains(range.endContainer)) return;
  var quote = document.getElementById(text.dataset.quoteInput);
  var start = document.getElementById(text.dataset.startInput);
  if (!quote || !start) return;
  var before = document.createRange();
  before.setStart(text, 0);
  before.setEnd(range.startContainer, range.startOffset);
  var chosen = range.toString();
  var offset = String(Array.from(before.toString()).length);
  // A selection stays after the mouse is up: any later click (Apply, say) must not count as a new pick.
  if (!chosen.trim() || (quote.value === chosen && start.value === offset)) return;
  quote.value = chosen;
  start.value = offset;
  quote.dispatchEvent(new Event("input", { bubbles: true }));
});

// Correct page: the passage the correction will also cite is shown as it is picked, with a way
// to remove it (both count as an edit of the correction, like any other).
document.addEventListener("input", function (event) {
  if (event.target.id !== "evidence-quote") return;
  var shown = document.getElementById("cited-passage");
  if (!shown) return;
  document.getElementById("cited-quote").textContent = event.target.value;
  shown.hidden = !event.target.value;
});
document.addEventListener("click", function (event) {
  var remove = event.target.closest && event.target.closest("[data-remove-citation]");
  var quote = document.getElementById("evidence-quote");
  if (!remove || !quote) return;
  quote.value = "";
  document.getElementById("evidence-start").value = "";
  // The removed passage stays selected otherwise, and a new drag over it would move it, not select.
  window.getSelection().removeAllRanges();
  quote.dispatchEvent(new Event("input", { bubbles: true }));
});

// Forms that ask before they are sent name their question in data-confirm (the
// Content-Security-Policy refuses inline onsubmit handlers).
document.addEventListener("submit", function (event) {
  var question = event.target.dataset && event.target.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});

// "Go back" links return to the previous page (a javascript: link would be refused by the
// Content-Security-Policy).
document.addEventListener("click", function (event) {
  var link = event.target.closest && event.target.closest("a[data-go-back]");
  if (!link) return;
  event.preventDefault();
  window.history.back();
});

// Correct page: Apply sends exactly what was previewed. Editing the correction after its preview
// disables Apply, with a word why, until it is previewed again (the new preview brings a new Apply).
document.addEventListener("input", function (event) {
  var edited = event.target.closest && event.target.closest("#correction-form form");
  var apply = document.querySelector("#impact form button[type=submit]");
  if (!edited || !apply || apply.disabled) return;
  apply.disabled = true;
  var note = document.createElement("p");
  note.className = "notice";
  note.setAttribute("role", "status");
  note.textContent = "You changed the correction after this preview: preview it again to apply it.";
  apply.closest("form").before(note);
});
