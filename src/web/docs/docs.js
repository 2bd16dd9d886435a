// @ts-check
// Starts Swagger UI on the service's own OpenAPI document. No inline script: the page's
// Content-Security-Policy allows scripts from this origin only.
/**
 * Swagger UI's bundle (`swagger-ui-bundle.js`, loaded by the page before this script) sets this global.
 * Its options and presets are Swagger UI's own, untyped here: only what this script passes is named.
 * @typedef {{ presets: { apis: unknown } } & ((options: Record<string, unknown>) => unknown)} SwaggerUIBundle
 */
(function () {
  'use strict';
  var SwaggerUIBundle = /** @type {Window & { SwaggerUIBundle: SwaggerUIBundle }} */ (/** @type {unknown} */ (window)).SwaggerUIBundle;
  // /api/docs/docs.js -> /api/openapi.json, whatever the host's route prefix.
  var documentUrl = new URL('../openapi.json', /** @type {HTMLScriptElement} */ (document.currentScript).src).href;
  SwaggerUIBundle({
    url: documentUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The default validator badge would send the document to an external service.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
  });
})();
