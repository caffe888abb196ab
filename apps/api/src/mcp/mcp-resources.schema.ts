/** Response body of `GET /api/mcp/resources`, described once. */
import { z } from 'zod';
import { documentedAs, openApiComponent } from '../platform/openapi/zod-openapi.js';

export const mcpResourceItemSchema = z.object({
  uri: z.string().meta({ example: 'doc:discovery' }),
  name: z.string().meta({ example: 'Discovery' }),
  type: z.string().meta({ description: 'Media type of the content', example: 'text/markdown' }),
});
export type McpResourceItem = z.infer<typeof mcpResourceItemSchema>;
export const mcpResourceItemComponent = openApiComponent('McpResourceItemDto', mcpResourceItemSchema);

export const mcpResourceListSchema = z.object({
  resources: z.array(documentedAs<McpResourceItem>(mcpResourceItemComponent)),
  nextCursor: z
    .string()
    .meta({ description: 'Cursor of the next page; absent on the last page', example: '20' })
    .optional(),
});
export type McpResourceList = z.infer<typeof mcpResourceListSchema>;

export const mcpResourceListComponent = openApiComponent('McpResourceListDto', mcpResourceListSchema);
