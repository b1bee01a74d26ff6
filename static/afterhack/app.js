// Errors an HTMX request could not show in place get a sentence at the top of the page.
document.addEventListener("htmx:responseError", function (event) {
  var status = event.detail.xhr.status;
  var words = {
    403: "You are not allowed to do this.",
    404: "That is no longer there, or it is not shared with you.",
    409: "Someone changed this in the meantime; reload the page and try again.",
  }[status] || "The server could not do this (" + status + "). Try again, and tell an administrator if it repeats.";
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
