import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import type { App, ErrorLogger } from '@crudsmith/core';
import { mountRoutes as mountExpress } from '@crudsmith/express';
import { frameworkErrors, mountRoutes as mountFastify } from '@crudsmith/fastify';
import { createKoaApp } from './app';

/** The HTTP adapters the example runs on (`ADAPTER`, default koa). */
export const ADAPTERS = ['koa', 'express', 'fastify'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

/** A listening example server. */
export interface RunningServer {
  /** `http://host:port`, with the port the system picked when 0 was asked. */
  url: string;
  /** The node server under the adapter, for what works on any of them (graceful shutdown, the request log). */
  server: Server;
  close(): Promise<void>;
}

/** Where and how to listen. */
export interface ServeOptions {
  adapter: string;
  host: string;
  port: number;
  trustedProxies?: string[];
  /** Where each adapter reports the errors it catches itself (console by default; main.ts passes the request log's). */
  logger?: ErrorLogger;
}

/** Serves a built app on the chosen adapter; each answers unknown paths with the same JSON 404 (`jsonNotFound`). */
export async function serve(app: App, options: ServeOptions): Promise<RunningServer> {
  const adapterOptions = {
    trustedProxies: options.trustedProxies,
    jsonNotFound: true,
    logger: options.logger,
  };
  switch (options.adapter) {
    case 'koa':
      return listening(
        createKoaApp(app, { trustedProxies: options.trustedProxies, logger: options.logger }).listen(
          options.port,
          options.host,
        ),
      );
    case 'express': {
      const server = express();
      mountExpress(server, app, adapterOptions);
      return listening(server.listen(options.port, options.host));
    }
    case 'fastify': {
      // frameworkErrors: Fastify's own early errors (bad JSON, bad URL) keep the JSON `detail` shape.
      const server = Fastify({ frameworkErrors });
      mountFastify(server, app, adapterOptions);
      const url = await server.listen({ port: options.port, host: options.host });
      return { url, server: server.server, close: () => server.close() };
    }
    default:
      throw new Error(`ADAPTER=${options.adapter} is unknown; use one of ${ADAPTERS.join(', ')}`);
  }
}

/** Waits until a node http server listens, then describes it. */
function listening(server: Server): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => {
      const { address, port } = server.address() as AddressInfo;
      const host = address.includes(':') ? `[${address}]` : address;
      resolve({
        url: `http://${host}:${port}`,
        server,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
