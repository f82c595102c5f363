// The API's documentation page: Swagger UI from files served by this server (no CDN).
//
// Three repairs of Swagger UI's markup, for screen readers and keyboards:
// - an operation's summary is a button, and its path inside was a link to the operation (the
//   same place the button opens, already written into the address when it opens): the path is
//   drawn as text, so the button holds no other control;
// - the copy buttons of the curl command and of a response body are empty, and the request body's
//   editor has no label: they are named;
// - a code block that scrolls could not be reached by keyboard: it takes the focus.
// The code is coloured with Swagger UI's "obsidian" theme: its default, "agate", draws numbers
// at 3.4:1 on its dark background (WCAG AA asks 4.5:1). docs.css darkens the other texts.
"use strict";

function summaryPathAsText() {
  return {
    wrapComponents: {
      OperationSummaryPath: function (Original, system) {
        return function (props) {
          const operationProps = props.operationProps.set("isDeepLinkingEnabled", false);
          return system.React.createElement(Original, Object.assign({}, props, { operationProps: operationProps }));
        };
      },
    },
  };
}

function repair(root) {
  for (const button of root.querySelectorAll(".copy-to-clipboard > button:not([aria-label])")) {
    button.setAttribute("aria-label", "Copy to clipboard");
  }
  for (const editor of root.querySelectorAll("textarea.body-param__text:not([aria-label])")) {
    editor.setAttribute("aria-label", "Request body");
  }
  for (const code of root.querySelectorAll("pre.microlight:not([tabindex])")) {
    code.setAttribute("tabindex", "0");
  }
}

const root = document.getElementById("swagger-ui");
new MutationObserver(function () { repair(root); }).observe(root, { childList: true, subtree: true });
window.SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  plugins: [summaryPathAsText],
  syntaxHighlight: { activated: true, theme: "obsidian" },
});
