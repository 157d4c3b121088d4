"""ESG experiments: serverless simulator, policies, CLI verbs, figure and benchmark."""
