/**
 * pkijs's ES module build on its own path: the package has no `exports` and its `main` is CommonJS,
 * which Node.js imports only after scanning all 800 KB of it for its exports (about as long as the rest
 * of `npm run verify`'s start-up). Its ES build is the same library (docs/evidence.md).
 */
declare module 'pkijs/build/index.es.js' {
  export * from 'pkijs';
}
