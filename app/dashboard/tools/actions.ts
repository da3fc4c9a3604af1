"use server";

import { z } from "zod";
import { createAction } from "@/lib/action";
import { type DashboardRun, runToolFromForm } from "@/lib/mcp/dashboard-run";

// The tool's fields are read by name from the rest of the form (lib/mcp/tool-form.ts).
const runSchema = z.object({ tool: z.string().trim().min(1).max(100) }).catchall(z.unknown());

/** /dashboard/tools: runs one tool as the signed-in person, as their assistant would. */
export const runToolAction = createAction(runSchema, async ({ tool, ...form }, { db, user }) => ({
  data: (await runToolFromForm(db, user.id, tool, form)) satisfies DashboardRun,
}));
