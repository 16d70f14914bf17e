// Loads every area's operator commands into the registry (lib/server/commands.ts). The help lists
// sections in the order they first appear here. A module registers its own at run time.
import '../site/commands';
import '../account/commands';
import '../market/commands';
import '../md/commands';
import '../modules/commands';
import '../admin/commands';
import '../admin/rule-commands';
import '../chat/commands';
