// Prometheus metrics (`GET /metrics`): requests by route and status, latency, page-cache hits and
// size, database pool, bus events, open connections, the process. One registry per runtime, so
// in-process test servers never share counters. Reading them needs METRICS_TOKEN (Bearer) or a
// request from this machine that did not come through a proxy.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { SeriesCounter, SeriesHistogram, type CounterSeries, type HistogramSeries } from './metric-series';
import type { Runtime } from './runtime';
import { matchRoute } from '../shared/routes';
import { countError } from './admin/dashboard';
import { appLocals } from './app-locals';
import { timeQueries } from './db/query-timing';

export interface Metrics {
  /** Starts timing a request; call the result when the response is finished. */
  observe(req: IncomingMessage, res: ServerResponse, pathname: string, requestId: string): void;
  cacheHit(): void;
  /**
   * A page answered from the cache by the fast path (synchronously, so `seconds` is the whole of
   * its handling): counted as a request, timed, and counted as a cache hit.
   */
  cachedPage(page: object, pathname: string, method: string, status: number, seconds: number): void;
  /** Answers /metrics (true) or nothing (false, not that path). */
  serve(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The route label: a route name of the table, the API path, or a coarse class; never a raw URL. */
export function routeLabel(pathname: string, status: number): string {
  if (pathname.startsWith('/api/')) return status === 404 ? 'api:unknown' : pathname.split('/').slice(0, 4).join('/');
  if (pathname.startsWith('/storage/')) return 'storage';
  if (pathname.startsWith('/_astro/') || /\.\w{2,5}$/.test(pathname)) return 'static';
  if (pathname === '/metrics' || pathname === '/healthz') return pathname.slice(1);
  const match = matchRoute(pathname);
  if (match?.valid) return match.route.name;
  if (pathname.startsWith('/admin/') || pathname.startsWith('/install')) return pathname.startsWith('/install') ? 'install' : 'adminSection';
  return 'other';
}

export function createMetrics(runtime: Runtime, openConnections: () => number, env: NodeJS.ProcessEnv = process.env): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'atrium_' });
  // Counted on every request: series held by the caller, not labels hashed per call (metric-series.ts).
  const requests = new SeriesCounter('atrium_http_requests_total', 'HTTP requests by route, method and status', ['route', 'method', 'status'], registry);
  const latency = new SeriesHistogram('atrium_http_request_duration_seconds', 'HTTP request latency by route', ['route', 'method'], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registry);
  const cacheHits = new SeriesCounter('atrium_page_cache_hits_total', 'Visitor pages answered from the page cache', [], registry).series({});
  new Gauge({ name: 'atrium_page_cache_entries', help: 'Pages held in the page cache', registers: [registry], collect() { this.set(runtime.pageCache.size); } });
  new Gauge({ name: 'atrium_page_cache_bytes', help: 'Bytes held by the page cache (bodies with their brotli and gzip copies)', registers: [registry], collect() { this.set(runtime.pageCache.bytes); } });
  new Gauge({ name: 'atrium_open_connections', help: 'Requests and streams open right now', registers: [registry], collect() { this.set(openConnections()); } });
  const stats = (runtime.database as { poolStats?: () => { total: number; idle: number; waiting: number } }).poolStats;
  new Gauge({
    name: 'atrium_db_pool_connections', help: 'PostgreSQL pool connections by state (total, idle, waiting)', labelNames: ['state'], registers: [registry],
    collect() {
      const s = stats?.();
      if (s) { this.set({ state: 'total' }, s.total); this.set({ state: 'idle' }, s.idle); this.set({ state: 'waiting' }, s.waiting); }
    },
  });
  new Gauge({ name: 'atrium_db_up', help: 'Whether a database ping answers', registers: [registry], async collect() { this.set((await runtime.database.ping()) ? 1 : 0); } });
  const busEvents = new Counter({ name: 'atrium_bus_events_total', help: 'Events published on the bus by channel', labelNames: ['channel'], registers: [registry] });
  // Counting at the one place every publish passes.
  const publish = runtime.bus.publish.bind(runtime.bus);
  runtime.bus.publish = async (channel, message) => {
    busEvents.inc({ channel: channel.split(':')[0] ?? channel });
    return publish(channel, message);
  };
  // AI chat usage (issue 16): replies by model and how they ended, tokens by model and kind, points
  // by model. The chat code lives in Astro's bundle, this in the server's: the runtime joins them.
  const chatReplies = new Counter({ name: 'atrium_chat_replies_total', help: 'AI chat replies by model and how they ended (done, stopped, failed)', labelNames: ['model', 'status'], registers: [registry] });
  const chatTokens = new Counter({ name: 'atrium_chat_tokens_total', help: 'AI chat tokens by model and kind (prompt, completion)', labelNames: ['model', 'kind'], registers: [registry] });
  const chatPoints = new Counter({ name: 'atrium_chat_points_total', help: 'Points charged for AI chat replies by model', labelNames: ['model'], registers: [registry] });
  runtime.countChatReply = (reply) => {
    chatReplies.inc({ model: reply.model, status: reply.status });
    if (reply.promptTokens > 0) chatTokens.inc({ model: reply.model, kind: 'prompt' }, reply.promptTokens);
    if (reply.completionTokens > 0) chatTokens.inc({ model: reply.model, kind: 'completion' }, reply.completionTokens);
    if (reply.points > 0) chatPoints.inc({ model: reply.model }, reply.points);
  };
  const slowMs = Number(env.SLOW_REQUEST_MS ?? 1000) || 1000;
  /** The series a cached page counts into, looked up once (its route never changes). */
  const seriesOfPage = new WeakMap<object, { route: string; time: Record<'GET' | 'HEAD', HistogramSeries>; ok: Record<'GET' | 'HEAD', CounterSeries> }>();
  const slowQueryMs = env.SLOW_QUERY_MS === undefined || env.SLOW_QUERY_MS === '' ? 500 : Number(env.SLOW_QUERY_MS);
  const queries = new Histogram({ name: 'atrium_db_query_duration_seconds', help: 'Database statements, inside transactions too', buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5], registers: [registry] });
  // Every statement drizzle sends is timed at the driver (lib/server/db/query-timing.ts): a slow one
  // is logged with the request and route that ran it, and whether it ran inside a transaction.
  timeQueries((runtime.db as unknown as { $client?: unknown }).$client, (ms, sql, inTransaction) => {
    queries.observe(ms / 1000);
    if (ms < slowQueryMs) return;
    const request = appLocals.getStore() as { requestId?: string; pathname?: string } | undefined;
    runtime.log.warn('slow query', {
      requestId: request?.requestId, route: request?.pathname === undefined ? undefined : routeLabel(request.pathname, 200),
      ms: Math.round(ms), sql: sql.replace(/\s+/g, ' ').slice(0, 300), ...(inTransaction ? { transaction: true } : {}),
    });
  });
  const token = env.METRICS_TOKEN?.trim() || null;

  return {
    observe(req, res, pathname, requestId) {
      const started = process.hrtime.bigint();
      res.once('finish', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const route = routeLabel(pathname, res.statusCode);
        const method = req.method ?? 'GET';
        requests.inc({ route, method, status: String(res.statusCode) });
        latency.observe({ route, method }, seconds);
        if (seconds * 1000 >= slowMs) runtime.log.warn('slow request', { requestId, route, method, status: res.statusCode, ms: Math.round(seconds * 1000) });
        if (res.statusCode >= 500) void countError(runtime.db).catch(() => undefined);
      });
    },
    cacheHit() {
      cacheHits.value++;
    },
    cachedPage(page, pathname, method, status, seconds) {
      // The route label of a cached page never changes: matched once per page, not per request.
      let series = seriesOfPage.get(page);
      if (series === undefined) {
        const route = routeLabel(pathname, 200);
        series = {
          route,
          time: { GET: latency.series({ route, method: 'GET' }), HEAD: latency.series({ route, method: 'HEAD' }) },
          ok: { GET: requests.series({ route, method: 'GET', status: '200' }), HEAD: requests.series({ route, method: 'HEAD', status: '200' }) },
        };
        seriesOfPage.set(page, series);
      }
      const { route } = series;
      const verb = method === 'HEAD' ? 'HEAD' : 'GET';
      if (status === 200 && method === verb) series.ok[verb].value++;
      else requests.inc({ route, method, status: String(status) });
      series.time[verb].observe(seconds);
      cacheHits.value++;
      if (seconds * 1000 >= slowMs) runtime.log.warn('slow request', { route, method, status, ms: Math.round(seconds * 1000) });
    },
    async serve(req, res, pathname) {
      if (pathname !== '/metrics') return false;
      const auth = req.headers.authorization ?? '';
      const proxied = runtime.config.trustProxy && Boolean(req.headers['x-forwarded-for']);
      const allowed = token ? auth === `Bearer ${token}` : LOOPBACK.has(req.socket.remoteAddress ?? '') && !proxied;
      if (!allowed) {
        res.writeHead(token ? 401 : 403, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
        res.end(token ? 'metrics need Authorization: Bearer <METRICS_TOKEN>\n' : 'metrics are served to this machine only (or set METRICS_TOKEN)\n');
        return true;
      }
      res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
      res.end(await registry.metrics());
      return true;
    },
  };
}
