// Keyboard: "/" moves to the page's search box (the claims search, the sources search, a claim picker),
// unless the reviewer is typing in a field. The box it moves to says so ("Press / to search"); a page
// with several boxes can name its main one with data-search-main, otherwise the first one shown is used.
function mainSearchBox() {
  var boxes = Array.prototype.filter.call(
    document.querySelectorAll("input[type=search]:not([disabled])"),
    function (box) { return box.getClientRects().length > 0; }
  );
  return boxes.filter(function (box) { return box.hasAttribute("data-search-main"); })[0] || boxes[0] || null;
}

function typingIn(element) {
  return Boolean(element && element.closest && element.closest("input, textarea, select, [contenteditable]"));
}

document.addEventListener("keydown", function (event) {
  if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
  if (typingIn(event.target)) return;
  var box = mainSearchBox();
  if (!box) return;
  event.preventDefault();
  box.focus();
  box.select();
});

// The hint, under the box "/" goes to (shown only where the key works: with JavaScript).
function showSearchHint() {
  var box = mainSearchBox();
  if (!box || box.dataset.slashHint) return;
  document.querySelectorAll(".slash-hint").forEach(function (old) { old.remove(); });
  box.dataset.slashHint = "shown";
  box.setAttribute("aria-keyshortcuts", "/");
  var hint = document.createElement("p");
  hint.className = "slash-hint muted small";
  hint.setAttribute("aria-hidden", "true");
  hint.append("Press ");
  var key = document.createElement("kbd");
  key.textContent = "/";
  hint.append(key, " to search");
  (box.closest("form") || box).after(hint);
}
document.addEventListener("DOMContentLoaded", showSearchHint);
document.addEventListener("htmx:load", showSearchHint);
