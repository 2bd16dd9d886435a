// The drawing pad the signing page imports as `./signature_pad.min.js` (served from the signature_pad package).
export { default } from 'signature_pad';
