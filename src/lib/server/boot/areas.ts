// Loads what the areas register for a new site (lib/server/seeds.ts: default settings and area
// seeds) and for the console (admin sections), in a fixed order so the seed is deterministic.
// Member-center pages register from lib/shared/member-pages/ and CLI commands from ./commands.ts.
import '../site/seed';
import '../messages/settings';
import '../chat/settings';
import '../ask/categories';
import '../md/transfer';
import '../market/seed';
import '../admin/sections';
