// cli.h: the command line: `blockscope [options]` starts the app (window or --headless), `blockscope info`,
// `blockscope bench <lab> ...`. Returns the process exit code; bad arguments give a message naming the
// argument and a non-zero code, never a crash.
#pragma once

namespace bs {

int run_cli(int argc, char** argv);

}  // namespace bs
