// The worker thread that renders the API reference's assets (src/modules/docs/scalar.ts says why):
// imports the Scalar plugin, renders, posts the assets to the service's thread and ends.
import { parentPort, workerData } from 'node:worker_threads';
import type { ApiReferenceConfiguration } from '@scalar/fastify-api-reference';
import { render } from './scalar.ts';

const assets = await render(
  workerData as Partial<ApiReferenceConfiguration>,
  () => import('@scalar/fastify-api-reference'),
);
parentPort?.postMessage(assets);
