from django.db import migrations, models


class Migration(migrations.Migration):
    """Model names unique after normalisation (step 3 of 3): every key filled, now unique."""

    dependencies = [
        ('leaderboard', '0014_fill_model_name_keys'),
    ]

    operations = [
        migrations.AlterField(
            model_name='modelentry',
            name='name_key',
            field=models.CharField(editable=False, max_length=200, unique=True),
        ),
    ]
