// A box that scrolls sideways (code, outputs, tables at a narrow width) is a keyboard stop:
// pydata-sphinx-theme gives it tabindex="0" while it overflows, -1 otherwise.  A stop needs a
// name (WCAG 4.1.2): while it is one it is a named region, "Code", "Output" or "Table".
(() => {
  const NAMES = {
    en: {code: "Code", output: "Output", table: "Table", other: "Scrollable content"},
    ja: {code: "コード", output: "出力", table: "表", other: "スクロールできる領域"},
  };
  const names = NAMES[document.documentElement.lang] || NAMES.en;
  const kind = (box) => box.closest(".cell_output, .output") ? "output"
    : box.matches(".pst-scrollable-table-container") ? "table"
    : box.closest(".highlight, .cell_input") ? "code" : "other";
  const name = (box) => {
    if (box.tabIndex === 0 && box.getAttribute("tabindex") === "0") {
      if (!box.hasAttribute("role")) {
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", names[kind(box)]);
        box.dataset.scrollRegion = "";
      }
    } else if ("scrollRegion" in box.dataset) {
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
      delete box.dataset.scrollRegion;
    }
  };
  const start = () => {
    const main = document.getElementById("main-content");
    if (!main) return;
    main.querySelectorAll("[tabindex]").forEach(name);
    new MutationObserver((changes) => changes.forEach((change) => name(change.target)))
      .observe(main, {subtree: true, attributes: true, attributeFilter: ["tabindex"]});
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

// sphinx-copybutton has no Japanese (its script, loaded before this one, keeps its words in the
// global `messages` and picks `locale` from <html lang>); sphinx-togglebutton names every
// show-answer button "Toggle hidden content", which hides its visible words ("Click to show",
// drawn by CSS) from a screen reader and from voice control (WCAG 2.5.3): they name it.
(() => {
  if (typeof messages === "object" && !messages.ja) {
    messages.ja = {copy: "コピー", copy_to_clipboard: "クリップボードにコピー", copy_success: "コピーしました",
                   copy_failure: "コピーできませんでした"};
    if (document.documentElement.lang === "ja") locale = "ja";
  }
  const nameButtons = () => {
    // its name follows the words it shows, which the toggle changes ("Click to hide")
    document.querySelectorAll("button.toggle-button").forEach((button) => {
      const byHint = () => button.setAttribute("aria-label", button.dataset.toggleHint);
      byHint();
      new MutationObserver(byHint).observe(button, {attributes: true, attributeFilter: ["data-toggle-hint"]});
    });
    // the copy icon's title was written when copybutton.js loaded, in its language then
    if (typeof messages === "object" && messages[locale]) {
      document.querySelectorAll("button.copybtn svg title")
        .forEach((title) => { title.textContent = messages[locale].copy_to_clipboard; });
    }
  };
  if (document.readyState === "complete") nameButtons();
  else window.addEventListener("load", nameButtons);
})();
