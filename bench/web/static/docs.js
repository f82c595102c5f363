// The API's documentation page: Swagger UI from files served by this server (no CDN).
"use strict";
window.SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
