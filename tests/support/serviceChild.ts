/**
 * A second service instance in a process of its own (`serviceProcess.ts` starts it): the local host on
 * a free port against the storage the environment names, without queue and timer triggers, printing
 * `API listening at <url>` once it answers. It stops when its parent kills it.
 */
import { startService } from '../../src/local/service.js';

const service = await startService({ port: 0, triggers: false, logHandler: () => undefined });
process.stdout.write(`API listening at ${service.apiUrl}\n`);
