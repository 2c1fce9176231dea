// triage console: progressive enhancement. Without this script every form
// posts and the answer is a page; with it, the answer replaces the form in
// place and the items an action replayed show their state as it changes.
"use strict";

function bind(root) {
  root.querySelectorAll("form.action").forEach(function (form) {
    if (form.dataset.bound) return;
    form.dataset.bound = "1";
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var target = form.dataset.target ? document.getElementById(form.dataset.target) : form.closest("[data-action-box]");
      var button = form.querySelector("button[type=submit]");
      if (button) button.disabled = true;
      fetch(form.action, {method: "POST", body: new URLSearchParams(new FormData(form)), headers: {"X-Console-Fragment": "1"}, credentials: "same-origin"})
        .then(function (r) { return r.text(); })
        .then(function (html) {
          target.innerHTML = html;
          bind(target);
          follow(target);
        })
        .catch(function (err) {
          target.insertAdjacentHTML("beforeend", "<p class=\"error\"></p>");
          target.lastElementChild.textContent = "The console did not answer: " + err;
          if (button) button.disabled = false;
        });
    });
  });
}

// follow polls the states of the items an action replayed until each is
// done, dead-lettered or failed again, for at most ten minutes.
function follow(root) {
  var spans = Array.prototype.slice.call(root.querySelectorAll("[data-live] [data-item]"));
  if (!spans.length) return;
  var until = Date.now() + 10 * 60 * 1000;
  function tick() {
    var open = spans.filter(function (s) { return ["done", "deadletter", "failed", "missing"].indexOf(s.textContent) < 0; });
    if (!open.length || Date.now() > until) return;
    var q = open.map(function (s) { return "item=" + encodeURIComponent(s.dataset.item); }).join("&");
    fetch("/states?" + q, {credentials: "same-origin"}).then(function (r) { return r.json(); }).then(function (st) {
      open.forEach(function (s) {
        var v = st[s.dataset.item];
        if (v) { s.textContent = v; s.className = "state state-" + v; }
      });
      setTimeout(tick, 2000);
    }).catch(function () { setTimeout(tick, 5000); });
  }
  setTimeout(tick, 1000);
}

document.addEventListener("DOMContentLoaded", function () { bind(document); });
