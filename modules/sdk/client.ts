// The module SDK for client code (`entry.client`): what a slot's component and the editor's component
// are given. Types only, kept apart from index.ts so that a server bundle's names never depend on them.
// At run time a client entry imports React and `@atrium/client` from the page (docs/modules/slots.md).
export type { EditorToolbarApi, SlotName, SlotProps } from '../../src/lib/shared/module-slots';
export type { EditorProps } from '../../src/lib/shared/module-client';
