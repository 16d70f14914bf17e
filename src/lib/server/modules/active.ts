// The shape of an instance's running modules, for the runtime's type (runtime.ts imports only this,
// so the classes that take a runtime can import what they need without a circle).
import type { ModuleHost } from './host/host';
import type { ModuleStatus } from './host/types';
import type { Manifest } from './manifest';

export interface ActiveModule {
  uid: string;
  version: string;
  sha256: string;
  manifest: Manifest;
  packageDir: string;
}

export interface RunningModules {
  /** Started with ATRIUM_SAFE_MODE: every module disabled whatever the wanted state says. */
  readonly safeMode: boolean;
  /** Brings this instance to the wanted state (one run at a time, in order). */
  reconcile(): Promise<void>;
  /** The modules running here. */
  list(): ActiveModule[];
  /** The host's view of a module (running, stopped, disabled by crashes), or null. */
  status(uid: string): ModuleStatus | null;
  /** The host, for routes and events (null until a module with server code is active). */
  readonly moduleHost: ModuleHost | null;
  /** The markdown modules the site renders with now (`uid@version`, sorted). */
  readonly currentRenderSet: string;
  close(): Promise<void>;
}
