// Starts Swagger UI on the service's own OpenAPI document. No inline script: the page's
// Content-Security-Policy allows scripts from this origin only.
(function () {
  'use strict';
  // /api/docs/docs.js -> /api/openapi.json, whatever the host's route prefix.
  var documentUrl = new URL('../openapi.json', document.currentScript.src).href;
  window.SwaggerUIBundle({
    url: documentUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The default validator badge would send the document to an external service.
    validatorUrl: null,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
  });
})();
