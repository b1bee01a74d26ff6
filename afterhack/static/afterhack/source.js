// Source page: words selected in the text fill the "Add a claim" form (app.js puts the quote and its
// start in and sends an input event). Here the form is brought to where the reviewer is, with a line
// saying the quote was taken, and the statement starts as the quote, for the reviewer to edit.
document.addEventListener("input", function (event) {
  // Only a quote filled from a selection (a script's event): typing in the field is left alone.
  if (event.isTrusted || event.target.id !== "quote-input") return;
  var quote = event.target.value;
  var statement = document.getElementById("statement-input");
  var note = document.getElementById("quote-picked");
  var form = document.getElementById("claim-form");
  if (!statement || !note || !form) return;
  // A statement the reviewer wrote is kept; one that was only an earlier quote follows the new quote.
  if (!statement.value.trim() || statement.value === statement.dataset.fromQuote) {
    var words = quote.split(/\s+/).filter(Boolean).join(" ");
    if (statement.maxLength > 0) words = words.slice(0, statement.maxLength);
    statement.value = words;
    statement.dataset.fromQuote = words;
  }
  var length = Array.from(quote).length;
  note.textContent = "Quote selected (" + length + " character" + (length === 1 ? "" : "s") + "). " +
    "The statement starts as the quote: edit it to say what the passage claims, then add the claim.";
  note.hidden = false;
  form.scrollIntoView({ block: "nearest" });
});

// The claims of a clicked passage are shown where the reviewer is: in the side panel beside the text, or,
// when the page is narrow and the panel is under the text, by scrolling to it.
document.addEventListener("htmx:afterSwap", function (event) {
  if (event.detail.target && event.detail.target.id === "claim-panel") {
    event.detail.target.scrollIntoView({ block: "nearest" });
  }
});

// A highlighted passage names its claims when it is pointed at or focused ("Claim: …", "2 claims: …; …"). Their
// statements are said once on the page, in the list under the text (`li#claim-<id>`'s link), not again in
// every highlighted piece: with thousands of claims that repetition was a third of the page.
function nameClaims(event) {
  var mark = event.target.closest && event.target.closest("mark[data-claims]");
  if (!mark || mark.title) return;
  var ids = mark.dataset.claims.split(" ");
  var named = ids.map(function (id) {
    var item = document.getElementById("claim-" + id);
    var link = item && item.querySelector("a");
    var statement = Array.from(link ? link.textContent : "");
    return statement.length <= 120 ? statement.join("") : statement.slice(0, 119).join("") + "…";
  }).join("; ");
  mark.title = ids.length === 1 ? "Claim: " + named : ids.length + " claims: " + named;
}
document.addEventListener("mouseover", nameClaims);
document.addEventListener("focusin", nameClaims);
