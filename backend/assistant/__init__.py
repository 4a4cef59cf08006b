"""The assistant: agent ingress, delivery credentials, tools, the offline agent and the LLM client."""
