/* MathJax 2 settings that make it work from a local copy with no network, shared by
   the book and nbgrader's feedback pages (loaded as config=...,local/offline).
   The jupyter-server-mathjax wheel ships only the STIX web fonts, so nothing may ask
   for the TeX fonts; MathJax's reference "blank" font points at about:blank, which
   Chromium refuses with a console error, and a missing local font behaves the same. */
MathJax.Hub.Config({
  messageStyle: "none",                        // no "Typesetting math: 100%" box over the page
  "fast-preview": {disabled: true},            // typesets a preview with the TeX fonts
  menuSettings: {assistiveMML: false},         // its hidden MathML asks for the TeX fonts
  "HTML-CSS": {
    availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null,
    styles: {"@font-face": {"font-family": "MathJax_Blank", src: "local('MathJax_Blank')"}}
  }
});
MathJax.Ajax.loadComplete("[MathJax]/config/local/offline.js");
