"""The assistant: agent ingress, delivery credentials, tools, the offline agent, the LLM client."""
