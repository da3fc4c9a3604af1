/**
 * The reference of `npm run bench`: the MCP library's own hello world (mcp-handler with one echo
 * tool, no auth, no database), served by the same production server in the same run. The file
 * ends in `.bench.ts`, a page extension only the bench build enables (next.config.ts), so no
 * other build contains this route.
 */
import { createMcpHandler } from "mcp-handler";
import { z } from "zod";

const handler = createMcpHandler(
  (server) => {
    server.registerTool(
      "echo",
      { description: "Echoes the text back.", inputSchema: z.object({ text: z.string().default("") }) },
      async ({ text }) => ({ content: [{ type: "text", text }] }),
    );
  },
  { serverInfo: { name: "bench-echo", version: "1.0.0" }, telemetry: false },
);

export { handler as POST };
