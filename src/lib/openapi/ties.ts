/**
 * Compile-time ties between a response schema of the OpenAPI document and the TypeScript type the
 * service answers with: `matches<Matches<typeof schema, Type>>(true)` fails the build when the
 * schema's output is not assignable to the type, or when the two name different fields, so the
 * document cannot drift from the code. Nothing here runs any check at run time.
 */
import type { z } from 'zod';

/** `true` when `A` and `B` name the same keys, else `false`. */
export type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;

/** `true` when the output of `Schema` is assignable to `Type` and both name the same keys, else `false`. */
export type Matches<Schema extends z.ZodType, Type> = z.output<Schema> extends Type ? SameKeys<z.output<Schema>, Type> : false;

/** Accepts only `true`: `matches<Matches<...>>(true)` does not compile when the tie is `false`. */
export const matches = <T extends true>(value: T): T => value;
