// The ICU message formatter the signing page imports as `./intl-messageformat.js` (served from the intl-messageformat package).
export * from 'intl-messageformat';
