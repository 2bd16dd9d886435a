/**
 * The look at the names a document's bytes hold, which spares the clean's sweeps when it finds
 * nothing they react to (docs/api.md#what-the-service-removes-from-documents-and-why): it must see
 * every name @libpdf/core can read, however it is written, and annotation flags that may print
 * without showing however they are stored.
 */
import { describe, expect, test } from '@jest/globals';
import { namesInBytes } from '../../../src/lib/pdf/namesInBytes.js';

const WATCHED = new Set(['JavaScript', 'AA', 'EF']);
const look = (text: string): { watched: boolean; objectStreams: boolean } => namesInBytes(new Uint8Array(Buffer.from(text, 'latin1')), WATCHED);

describe('names the sweeps react to', () => {
  test.each([
    ['plain', '<< /S /JavaScript /JS (x) >>'],
    ['written with #xx escapes', '<< /S /Java#53cript >>'],
    ['every character escaped', '<< /S /#4A#61#76#61#53#63#72#69#70#74 >>'],
    ['a key', '<< /AA << >> >>'],
    ['at the very end of the bytes', '/EF'],
    ['followed by a delimiter', '<</EF<<>>>>'],
    ['inside a string (read as a name all the same)', '(/JavaScript)'],
    ['inside stream data', 'stream\n/AA\nendstream'],
  ])('%s: seen', (_, text) => {
    expect(look(text).watched).toBe(true);
  });

  test.each([
    ['a longer name', '<< /JavaScripts 1 >>'],
    ['a shorter name', '<< /Java /Script >>'],
    ['a name with a byte above 127', '<< /Java\u00e9Script >>'],
    ['an escape that is not two hexadecimal digits', '<< /Java#5Script /A#G >>'],
    ['other names', '<< /Type /Page /Annots [] /F1 4 0 R >>'],
  ])('%s: not seen', (_, text) => {
    expect(look(text).watched).toBe(false);
  });

  test('object streams are noticed, written plainly or escaped', () => {
    expect(look('<< /Type /ObjStm /N 3 /First 20 >>')).toEqual({ watched: false, objectStreams: true });
    expect(look('<< /Type /Obj#53tm >>').objectStreams).toBe(true);
    expect(look('<< /Type /XRef >>').objectStreams).toBe(false);
  });
});

describe('annotation flags (/F) that may print without showing', () => {
  test.each([
    ['Print and NoView', '/F 36'],
    ['with other bits', '/F 292'],
    ['after a comment', '/F %flags\n 36'],
    ['stored in another object', '/F 12 0 R'],
    ['a reference after a comment', '/F 4 %x\r0 R'],
    ['signed', '/F +36'],
    ['decimal', '/F 36.0'],
    ['too long to read for sure', '/F 1234567890123456'],
    ['escaped name', '/#46 36'],
  ])('%s: seen', (_, text) => {
    expect(look(`<< ${text} >>`).watched).toBe(true);
  });

  test.each([
    ['Print only', '/F 4'],
    ['NoView only', '/F 32'],
    ['a file name', '/F (payload.exe)'],
    ['a file specification', '/F << /Type /Filespec >>'],
    ['another name', '/F1 36'],
  ])('%s: not seen', (_, text) => {
    expect(look(`<< ${text} >>`).watched).toBe(false);
  });
});
