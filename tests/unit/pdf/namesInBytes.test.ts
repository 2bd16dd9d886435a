/**
 * The look at the names a document's bytes hold, which spares the clean's sweeps when it finds
 * nothing they react to (docs/api.md#what-the-service-removes-from-documents-and-why): it must see
 * every name @libpdf/core can read, however it is written, and annotation flags that may print
 * without showing however they are stored.
 */
import { describe, expect, test } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { namesInBytes, namesInObjectStreams } from '../../../src/lib/pdf/namesInBytes.js';
import { WATCHED_NAMES } from '../../../src/lib/pdf/clean.js';
import { VENDORED_CORPUS_DIR } from '../../support/corpus.js';

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

/** An object stream's object as a file's bytes hold it: `dictionary` (with `%data` for the data's length) and its data. */
const objectStream = (dictionary: string, data: Buffer, after = '\nendstream\nendobj\n'): Buffer =>
  Buffer.concat([Buffer.from(`%PDF-1.7\n6 0 obj\n${dictionary.replace('%data', String(data.length))}\nstream\n`, 'latin1'), data, Buffer.from(after, 'latin1')]);
const flate = (text: string): Buffer => deflateSync(Buffer.from(text, 'latin1'));
const HOLDS_SCRIPT = flate('10 0 << /S /JavaScript /JS (x) >>');
const HOLDS_NOTHING = flate('10 0 << /S /URI /URI (https://example.com) >>');
const inStreams = (bytes: Buffer, cap = 8 * bytes.length): string => namesInObjectStreams(new Uint8Array(bytes), WATCHED, cap);

describe('names in object streams, decoded', () => {
  test.each([
    ['written plainly', '<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /Length %data >>', HOLDS_SCRIPT],
    ['the filter in an array', '<< /Type /ObjStm /N 1 /First 5 /Filter [ /FlateDecode ] /Length %data >>', HOLDS_SCRIPT],
    ['names escaped', '<</#54ype/Obj#53tm/N 1/First 5/#46ilter/Flate#44ecode/Length %data>>', HOLDS_SCRIPT],
    ['a /Length that lies', '<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /Length 3 >>', HOLDS_SCRIPT],
    ['an indirect /Length', '<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /Length 7 0 R >>', HOLDS_SCRIPT],
    ['another object stream inside', '<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /Length %data >>', flate('10 0 << /Type /ObjStm >>')],
    ['print-only flags inside', '<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /Length %data >>', flate('10 0 << /Type /Annot /F 36 >>')],
    // Its `stream` keyword is looked for in the first 512 bytes, then 4 KiB, then 64 KiB.
    ['a long dictionary (stream past 512 bytes)', `<< /Type /ObjStm /Pad [${'1 '.repeat(400)}] /N 1 /First 5 /Filter /FlateDecode /Length %data >>`, HOLDS_SCRIPT],
    ['a longer dictionary (stream past 4 KiB)', `<< /Type /ObjStm /Pad [${'12 0 R '.repeat(1000)}] /N 1 /First 5 /Filter /FlateDecode /Length %data >>`, HOLDS_SCRIPT],
  ])('a watched name in an object stream (%s): seen', (_, dictionary, data) => {
    expect(inStreams(objectStream(dictionary, data))).toBe('watched');
  });

  test('an object stream holding no watched name: none', () => {
    const bytes = objectStream('<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /Length %data >>', HOLDS_NOTHING);
    expect(namesInBytes(new Uint8Array(bytes), WATCHED)).toEqual({ watched: false, objectStreams: true });
    expect(inStreams(bytes)).toBe('none');
    expect(inStreams(Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1'))).toBe('none');
  });

  test.each([
    ['through a filter chain', '<< /Type /ObjStm /N 1 /First 5 /Filter [/ASCIIHexDecode /FlateDecode] /Length %data >>', Buffer.from(`${HOLDS_NOTHING.toString('hex')}>`, 'latin1')],
    ['through another filter', '<< /Type /ObjStm /N 1 /First 5 /Filter /LZWDecode /Length %data >>', HOLDS_NOTHING],
    ['with an abbreviated filter name', '<< /Type /ObjStm /N 1 /First 5 /Filter /Fl /Length %data >>', HOLDS_NOTHING],
    ['with an indirect filter', '<< /Type /ObjStm /N 1 /First 5 /Filter 8 0 R /Length %data >>', HOLDS_NOTHING],
    ['with no filter', '<< /Type /ObjStm /N 1 /First 5 /Length %data >>', Buffer.from('10 0 << >>', 'latin1')],
    ['with a predictor', '<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4 >> /Length %data >>', HOLDS_NOTHING],
    ['with two filters named', '<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /Filter /ASCIIHexDecode /Length %data >>', HOLDS_NOTHING],
    ['with a string in its dictionary', '<< /Type /ObjStm /X (obj) /N 1 /First 5 /Filter /FlateDecode /Length %data >>', HOLDS_NOTHING],
    ['with a comment in its dictionary', '<< /Type /ObjStm /N 1 /First 5 %x\n/Filter /FlateDecode /Length %data >>', HOLDS_NOTHING],
    ['cut short', '<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /Length %data >>', HOLDS_NOTHING.subarray(0, HOLDS_NOTHING.length - 6)],
    ['with a wrong checksum', '<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /Length %data >>', Buffer.concat([HOLDS_NOTHING.subarray(0, -1), Buffer.from([HOLDS_NOTHING.at(-1)! ^ 1])])],
    ['not compressed data', '<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /Length %data >>', Buffer.from('10 0 << >>', 'latin1')],
  ])('an object stream (%s): unreadable, so swept', (_, dictionary, data) => {
    expect(inStreams(objectStream(dictionary, data))).toBe('unreadable');
  });

  test('an object stream without endstream, or in an encrypted file, or decoding past the cap: unreadable', () => {
    const dictionary = '<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /Length %data >>';
    expect(inStreams(objectStream(dictionary, HOLDS_NOTHING, '\n'))).toBe('unreadable');
    expect(inStreams(objectStream(dictionary, HOLDS_NOTHING, '\nendstream\nendobj\ntrailer << /Encrypt 9 0 R >>\n'))).toBe('unreadable');
    const large = objectStream(dictionary, flate(`10 0 << /Pad (${'x'.repeat(100_000)}) >>`));
    expect(inStreams(large, 200_000)).toBe('none');
    expect(inStreams(large, 50_000)).toBe('unreadable');
  });

  test('the linearized corpus file, nearly all of its objects in object streams: no watched name in its bytes nor its object streams', async () => {
    const bytes = new Uint8Array(await readFile(path.join(VENDORED_CORPUS_DIR, 'linearized_with_object_streams.pdf')));
    expect(namesInBytes(bytes, WATCHED_NAMES)).toEqual({ watched: false, objectStreams: true });
    expect(namesInObjectStreams(bytes, WATCHED_NAMES, 8 * bytes.length)).toBe('none');
  });
});
