/**
 * Nest on Fastify with nothing of the app: one controller, one route answering the bare Fastify
 * route's body, no hooks, filters or modules of ours. bench/http.bench.ts runs it beside the app and the
 * bare Fastify server, so one run shows how far the frameworks alone sit from the bare route (the
 * floor for any Nest app on this machine) and how far the app sits from them. `GET /nest-root` answers
 * the app's GET / body (ROOT_BODY) the way the app's root handler does (scripts/route-cpu.ts).
 *
 *   PORT=<port> node --import @swc-node/register/esm-register bench/support/nest-alone.server.ts
 */
import 'reflect-metadata';
import { Controller, Get, Module, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type FastifyReply } from 'fastify';

/** The app's GET / body (ROOT_BODY, when the caller passes it), for the `nest-root` route. */
const rootBody = process.env.ROOT_BODY ?? '{}';
/**
 * BUSY_US: µs of busy CPU added to each `/nest-root` answer (default 0), to see what a slower server costs
 * in the kernel with nothing else changed (scripts/route-perf.ts, NEST_BUSY_US).
 */
const busyMs = Number(process.env.BUSY_US ?? 0) / 1000;

@Controller()
class NestAloneController {
  @Get('nest')
  answer(): { status: string; service: string } {
    return { status: 'ok', service: 'bare' };
  }

  /** GET /'s bytes, answered the way the app's root handler answers them (a ready string). */
  @Get('nest-root')
  root(@Res({ passthrough: true }) reply: FastifyReply): string {
    void reply.type('application/json; charset=utf-8');
    if (busyMs > 0) {
      const until = performance.now() + busyMs;
      while (performance.now() < until);
    }
    return rootBody;
  }
}

@Module({ controllers: [NestAloneController] })
class NestAloneModule {}

const app = await NestFactory.create<NestFastifyApplication>(NestAloneModule, new FastifyAdapter(), {
  logger: false,
});
await app.listen(Number(process.env.PORT), '127.0.0.1');
