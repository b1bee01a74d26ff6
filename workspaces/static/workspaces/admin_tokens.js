// The admin's new-token panel: "Copy" puts the token on the clipboard and says whether it did.
// A file, not an inline script: the Content-Security-Policy runs scripts from this server only.
"use strict";

function selectContents(element) {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

async function copyFrom(button) {
  const token = document.getElementById(button.dataset.copy);
  const said = button.parentElement.querySelector("[role=status]");
  // Selected first, so that if no clipboard can be reached, Ctrl+C is all that is left to do.
  selectContents(token);
  try {
    // The clipboard API needs a secure context (HTTPS, or localhost); elsewhere the selection is copied.
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(token.textContent);
    } else if (!document.execCommand("copy")) {
      throw new Error("the browser refused to copy");
    }
    said.textContent = "Copied.";
  } catch {
    said.textContent = "Could not copy: the token is selected, press Ctrl+C (⌘C on a Mac).";
  }
}

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    button.addEventListener("click", () => copyFrom(button));
  }
});
