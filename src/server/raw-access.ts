// Who may call the API routes the Node server answers itself, before Astro (uploads stream to
// disk, message streams stay open): their declarations, as the route files under src/pages/api
// declare theirs. tests/integration/authz-matrix.test.ts fails for an `/api/` path handled in
// src/server/ without an entry here.
import { DEVELOPERS, MEMBERS, OWNER, routeAccess, type RouteAccess } from '../lib/shared/access';
import { SendInput } from '../lib/shared/validation/chat';

export const RAW_ROUTE_ACCESS: Record<string, RouteAccess> = {
  /** src/server/upload.ts handleUpload: a member's file. */
  '/api/ajax/upload': routeAccess({ POST: { ...MEMBERS } }),
  /** src/server/upload.ts handlePackageUpload: an approved developer's module package. */
  '/api/developer/package': routeAccess({ POST: { ...DEVELOPERS } }),
  /** src/server/stream.ts handleStream: the member's own message events. */
  '/api/interaction/stream': routeAccess({ GET: { ...MEMBERS } }),
  /** src/server/chat-send.ts handleChatSend: a question (the Astro route src/pages/api/chat/send.ts declares the same). */
  '/api/chat/send': routeAccess({ POST: { ...OWNER, visitor: 'ok', input: SendInput } }),
};
