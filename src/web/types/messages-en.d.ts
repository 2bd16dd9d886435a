// The signing page's English catalogue, served as an ES module (`messages-en.js`, src/lib/web/pages.ts).
declare const messages: Record<string, string>;
export default messages;
