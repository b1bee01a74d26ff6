from tests.webhooks.receiver import receiver as receiver  # the fixture, for every test here
