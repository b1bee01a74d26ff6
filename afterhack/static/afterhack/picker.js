// The picker of claims and decisions (templates/partials/picker.html). Its search box is a combobox: results
// come from the server as one types (htmx); arrow keys move through them, Enter picks, Escape closes. Picking
// copies the result's <template> (a line with a hidden input carrying the id) into the chosen list, so no
// request is made; "Remove" takes a line out. A picker of one item (a filter) submits its form when it changes.
// Without JavaScript all of these are submit buttons of the form, and the page comes back changed.
(function () {
  "use strict";

  function pickerOf(node) { return node && node.closest ? node.closest("[data-picker]") : null; }
  function box(picker) { return picker.querySelector("[data-picker-q]"); }
  function options(picker) { return Array.from(picker.querySelectorAll(".pick-results li[role=option]")); }

  function setUp(root) {
    (root.matches && root.matches("[data-picker]") ? [root] : Array.from(root.querySelectorAll("[data-picker]")))
      .forEach(function (picker) {
        if (picker.dataset.js === "on") return;
        picker.dataset.js = "on";
        sync(picker);
      });
  }

  function open(picker, on) {
    picker.classList.toggle("is-open", on);
    box(picker).setAttribute("aria-expanded", on ? "true" : "false");
    if (!on) activate(picker, null);
  }

  function activate(picker, option) {
    options(picker).forEach(function (o) {
      o.classList.toggle("is-active", o === option);
      o.setAttribute("aria-selected", o === option ? "true" : "false");
    });
    var input = box(picker);
    if (option) {
      input.setAttribute("aria-activedescendant", option.id);
      option.scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function move(picker, step) {
    var all = options(picker);
    if (!all.length) return;
    var now = all.indexOf(picker.querySelector(".pick-results li.is-active"));
    var next = now < 0 ? (step > 0 ? 0 : all.length - 1) : (now + step + all.length) % all.length;
    open(picker, true);
    activate(picker, all[next]);
  }

  // Marks what is chosen wherever it is offered; a line chosen twice is kept once.
  function sync(picker) {
    var chosen = {};
    picker.querySelectorAll("ul.chosen li.chosen-item").forEach(function (line) {
      if (chosen[line.dataset.id]) line.remove();
      else chosen[line.dataset.id] = true;
    });
    picker.querySelectorAll("[data-pick-item]").forEach(function (item) {
      var button = item.querySelector("[data-pick]");
      if (!button) return;
      var on = Boolean(chosen[item.dataset.id]);
      item.classList.toggle("is-chosen", on);
      item.setAttribute("aria-disabled", on ? "true" : "false");
      button.disabled = on;
      button.textContent = on ? "Chosen" : "Add";
    });
  }

  function changed(picker) {
    sync(picker);
    if (picker.hasAttribute("data-single")) {
      var form = picker.closest("form");
      var input = box(picker);
      input.value = "";
      if (form) form.requestSubmit();
    }
  }

  function pick(item) {
    var picker = pickerOf(item);
    var template = item.querySelector("template");
    if (!picker || !template || item.classList.contains("is-chosen")) return;
    var list = picker.querySelector("ul.chosen");
    if (picker.hasAttribute("data-single")) list.querySelectorAll("li.chosen-item").forEach(function (l) { l.remove(); });
    list.appendChild(template.content.cloneNode(true));
    changed(picker);
    var line = list.querySelector('li.chosen-item[data-id="' + item.dataset.id + '"]');
    if (line && window.htmx) window.htmx.process(line);
  }

  // A form that came back (a refusal, or a picker's own button without JavaScript) is scrolled into view.
  document.addEventListener("DOMContentLoaded", function () {
    setUp(document);
    var back = document.querySelector("[data-scroll-here]");
    if (back) back.scrollIntoView({ block: "start" });
  });
  document.addEventListener("htmx:load", function (event) { setUp(event.detail.elt); });

  document.addEventListener("focusin", function (event) {
    var picker = pickerOf(event.target);
    if (picker && event.target.matches("[data-picker-q]")) open(picker, true);
  });
  document.addEventListener("focusout", function (event) {
    var picker = pickerOf(event.target);
    if (!picker) return;
    // Closed once the focus has left the picker (a click on a result keeps it inside).
    setTimeout(function () { if (!picker.contains(document.activeElement)) open(picker, false); }, 150);
  });

  document.addEventListener("keydown", function (event) {
    if (!event.target.matches || !event.target.matches("[data-picker-q]")) return;
    var picker = pickerOf(event.target);
    if (!picker) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      move(picker, event.key === "ArrowDown" ? 1 : -1);
    } else if (event.key === "Enter") {
      // Enter never sends the form from here: it picks the highlighted result, or searches now.
      event.preventDefault();
      var active = picker.querySelector(".pick-results li.is-active");
      if (active) pick(active);
      else if (window.htmx) { open(picker, true); window.htmx.trigger(event.target, "search"); }
    } else if (event.key === "Escape" && picker.classList.contains("is-open")) {
      event.preventDefault();
      open(picker, false);
    }
  });

  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target : null;
    if (!target) return;
    var add = target.closest("[data-pick]");
    var remove = target.closest("[data-unpick]");
    var option = target.closest(".pick-results li[role=option]");
    if (add && pickerOf(add)) {
      event.preventDefault();
      pick(add.closest("[data-pick-item]"));
    } else if (remove && pickerOf(remove)) {
      event.preventDefault();
      var picker = pickerOf(remove);
      remove.closest("li").remove();
      changed(picker);
    } else if (option && pickerOf(option)) {
      pick(option);
    }
  });

  // After new results arrive: what is chosen is marked, and nothing is highlighted yet.
  document.addEventListener("htmx:afterSwap", function (event) {
    var picker = pickerOf(event.detail.target);
    if (!picker) return;
    sync(picker);
    activate(picker, null);
    if (picker.contains(document.activeElement)) open(picker, true);
  });

  // A filter form sends no empty search box, so its address stays short enough to share.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.method || form.method.toLowerCase() !== "get") return;
    form.querySelectorAll("[data-picker-q]").forEach(function (input) {
      if (input.value) return;
      input.disabled = true;
      setTimeout(function () { input.disabled = false; }, 0);
    });
  });
})();
