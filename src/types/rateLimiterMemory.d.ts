/**
 * `rate-limiter-flexible`'s in-memory limiter on its own: the package's index loads every store it
 * supports (Redis, Mongo, SQL, cluster, ...), twice the import time of this one module, which the first
 * request of an instance waits for.
 */
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  import { RateLimiterMemory } from 'rate-limiter-flexible';

  export default RateLimiterMemory;
}
