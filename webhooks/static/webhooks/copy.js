// A secret shown once: "Copy" puts it on the clipboard and says whether it did. Delegated, so a secret swapped in by
// htmx has it too. A file, not an inline script: the Content-Security-Policy runs scripts from this server only.
"use strict";

async function copySecret(button) {
  const value = document.getElementById(button.dataset.copy);
  const said = button.parentElement.querySelector("[role=status]");
  const range = document.createRange();
  range.selectNodeContents(value);
  window.getSelection().removeAllRanges();
  window.getSelection().addRange(range);
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(value.textContent);
    } else if (!document.execCommand("copy")) {
      throw new Error("the browser refused to copy");
    }
    said.textContent = "Copied.";
  } catch {
    said.textContent = "Could not copy: the secret is selected, press Ctrl+C (⌘C on a Mac).";
  }
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (button) {
    copySecret(button);
  }
});
